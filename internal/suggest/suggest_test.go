package suggest

import "testing"

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"abc", "abc", 0},
		{"evalute", "evaluate", 1},
		{"evaulate", "evaluate", 1}, // a swap
		{"biuld", "build", 1},
		{"kitten", "sitting", 3},
		{"servé", "serve", 1}, // runes, not bytes
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetry)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestClosest(t *testing.T) {
	commands := []string{"build", "bundle", "completion", "evaluate", "import", "init", "serve", "verify", "version"}
	fields := []string{"case_id", "citations", "cost_usd", "decision", "latency_ms", "tool_calls", "trial"}
	tests := []struct {
		typed      string
		candidates []string
		want       string // "" when nothing should be offered
	}{
		{"evalute", commands, "evaluate"},
		{"biuld", commands, "build"},
		{"serv", commands, "serve"},
		{"verison", commands, "version"},
		{"Build", commands, "build"},
		{"frobnicate", commands, ""},
		{"x", commands, ""},
		{"toolcalls", fields, "tool_calls"},
		{"tool-calls", fields, "tool_calls"},
		{"latency", fields, "latency_ms"},
		{"caseid", fields, "case_id"},
		{"decison", fields, "decision"},
		{"citation", fields, "citations"},
		{"model", fields, ""},
		{"build", commands, ""}, // the name itself is no suggestion
	}
	for _, tt := range tests {
		got, ok := Closest(tt.typed, tt.candidates)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("Closest(%q) = %q, %v; want %q", tt.typed, got, ok, tt.want)
		}
	}
}

func FuzzDistance(f *testing.F) {
	f.Add("evaluate", "evalute")
	f.Add("", "x")
	f.Add("ab", "ba")
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 64 || len(b) > 64 {
			return
		}
		d := Distance(a, b)
		la, lb := len([]rune(a)), len([]rune(b))
		if d < max(la, lb)-min(la, lb) || d > max(la, lb) {
			t.Fatalf("Distance(%q, %q) = %d outside [%d, %d]", a, b, d, max(la, lb)-min(la, lb), max(la, lb))
		}
		if d != Distance(b, a) {
			t.Fatalf("not symmetric for %q, %q", a, b)
		}
		if a == b && d != 0 {
			t.Fatalf("Distance(%q, %q) = %d, want 0", a, b, d)
		}
	})
}
