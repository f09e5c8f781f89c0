package public

// DesktopBackgroundCPUs is the background work (model.Handoff.BackgroundCPUs)
// taken for a desktop or laptop host: the x86 rows' and the Macs'. Set
// from one row, SMT-7/t16 (marked so in rows.yaml, and never scored):
// the 6800H laptop's tg128 falls from 10.85 t/s at -t 8 to 8.83 at -t 16,
// where the pool fills every hardware thread. Its decode is bandwidth-bound
// from -t 4 on (10.65 at -t 4), a second hardware thread adds nothing to a
// core's DRAM stream (the dram SMT yield, 0), and -t 12, which leaves four
// hardware threads idle, loses only what its fixed slices on shared cores
// give (10.16; blsim 0.950 of -t 8 against the measured 0.936). So the
// whole drop is taken as the pool's stall: 1 - 8.83/10.85 = 0.19 of the
// time. What the laptop ran beside llama-bench is not public; the value
// lumps every cost of filling the last hardware threads. It is checked on
// the 13900K's INT-1/t32 (a desktop, a report two years apart), which set
// nothing.
const DesktopBackgroundCPUs = 0.19

// FamilyBackgroundCPUs is the background work a family's hosts ran beside
// llama.cpp, where the SoC preset gives none: the desktop families'
// DesktopBackgroundCPUs. The boards' (headless Linux) and the phones' are
// 0: the phones' rows at -t 8 on their eight cores (SD8G3-6, SD8G3-9) show
// no such drop.
var FamilyBackgroundCPUs = map[string]float64{"intel": DesktopBackgroundCPUs, "amd": DesktopBackgroundCPUs, "apple": DesktopBackgroundCPUs}
