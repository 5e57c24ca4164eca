package markdown

import (
	"strings"
	"testing"
)

func TestCell(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"a | b", `a \| b`},
		{"two\nlines\r\n", "two lines  "},
		{"<script>", `\<script\>`},
		{"*bold* _it_ `code` [link](x) ~s~ &amp; #1!", "\\*bold\\* \\_it\\_ \\`code\\` \\[link\\](x) \\~s\\~ \\&amp; \\#1\\!"},
		{`back\slash`, `back\\slash`},
		{"§4.2 😀", "§4.2 😀"},
	}
	for _, tt := range tests {
		if got := Cell(tt.in); got != tt.want {
			t.Errorf("Cell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzCell checks what a table needs of any text: one line, no pipe that
// would end the cell, and nothing special left unescaped.
func FuzzCell(f *testing.F) {
	for _, seed := range []string{"", "plain", "a|b", "`x`\n<script>", `\|`, "\\\\|", "\xff|"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Cell(s)
		if strings.ContainsAny(got, "\r\n") {
			t.Fatalf("Cell(%q) = %q spans lines", s, got)
		}
		// Every special character must be preceded by an odd number of
		// backslashes: escaped itself, not an escaped backslash.
		for i := 0; i < len(got); i++ {
			if !strings.ContainsRune(special, rune(got[i])) || got[i] == '\\' {
				continue
			}
			n := 0
			for j := i - 1; j >= 0 && got[j] == '\\'; j-- {
				n++
			}
			if n%2 == 0 {
				t.Fatalf("Cell(%q) = %q leaves %q at byte %d unescaped", s, got, got[i], i)
			}
		}
	})
}
