package llamabench

import "testing"

func TestDetectFormat(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Format
		wantErr bool
	}{
		{"json array", "[\n  {\n    \"build_commit\": \"0104b151\",", JSON, false},
		{"json object", "\n{\n  \"build_commit\": \"0104b151\"\n}\n", JSON, false},
		{"jsonl", `{"build_commit": "0104b151", "build_number": 7950}` + "\n", JSONL, false},
		{"jsonl truncated", `{"build_commit": "0104b`, JSONL, false},
		{"csv", "build_commit,build_number,cpu_info\n\"a\",\"1\",\"x\"\n", CSV, false},
		{"csv quoted header", "\"build_commit\",\"n_threads\"\n", CSV, false},
		{"md", "| model | size | params | backend | threads | test | t/s |\n", Markdown, false},
		{"md indented", "  \r\n  | model | t/s |", Markdown, false},
		{"sql create", "CREATE TABLE IF NOT EXISTS llama_bench (\n", SQL, false},
		{"sql insert", "insert into llama_bench (a) values ('1');\n", SQL, false},
		{"bom", "\xef\xbb\xbf[\n", JSON, false},
		{"empty", "", Auto, true},
		{"blank", " \n\t\n", Auto, true},
		{"log line", "load_backend: loaded CPU backend\n", Auto, true},
		{"one word", "build_commit\n", Auto, true},
	}
	for _, tt := range tests {
		got, err := DetectFormat([]byte(tt.in))
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("%s: DetectFormat = %v, %v; want %v, error %v", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
	if _, err := DetectFormat(nil); err != ErrEmpty {
		t.Errorf("DetectFormat(nil): %v, want ErrEmpty", err)
	}
}

func TestParseFormat(t *testing.T) {
	for f := Auto; f <= SQL; f++ {
		got, err := ParseFormat(f.String())
		if err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %v, %v", f.String(), got, err)
		}
	}
	if f, err := ParseFormat("markdown"); f != Markdown || err != nil {
		t.Errorf("ParseFormat(markdown) = %v, %v", f, err)
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("ParseFormat(xml): no error")
	}
	if s := Format(42).String(); s != "Format(42)" {
		t.Errorf("Format(42).String() = %q", s)
	}
}
