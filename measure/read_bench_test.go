package measure

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkRead: Read on the measurements files of issue 31's hostile
// inputs, in memory (BenchmarkHostileInputs in cmd/blsim times the
// whole command): 64 MB of good records and 20 MB of lines that are no
// record.
func BenchmarkRead(b *testing.B) {
	var good bytes.Buffer
	for i := 0; good.Len() < 64<<20-400; i++ {
		fmt.Fprintf(&good, `{"schema":"blsim/measurement/v1","id":"r%d","kind":"reported","soc":"rk3588","workload":"qwen3.5-35b-a3b","plan":{"mode":"native","engines":["big"],"threads":[4],"poll":50},"unit":"t/s","samples":[26.2,26.3],"median":26.25,"cv":0,"status":"ok"}`+"\n", i%64)
	}
	bad := bytes.Repeat([]byte("{\"not\": \"a record\"}\n"), 20_000_000/21)
	for _, c := range []struct {
		name string
		data []byte
	}{{"good-64MB", good.Bytes()}, {"bad-20MB", bad}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				readSized(bytes.NewReader(c.data), "f.jsonl", nil, int64(len(c.data)))
			}
		})
	}
}
