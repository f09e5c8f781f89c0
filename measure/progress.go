package measure

// Progress is told of a long task's steps as they finish, the one progress
// callback of blsim's libraries (a calibration's steps, a grid's runs, a
// prediction's steps, a what-if grid's cells): done of total (done from
// 1), the step's label ("" when it has none), and the measurement it took
// (nil for a step that measures nothing: a prediction's, or one already
// measured). A call with total 0 ends the task, where a caller says so
// (a bar finishes).
type Progress func(done, total int, label string, m *Measurement)
