package pagename

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// The expected names were worked out apart from this package (slug by a
// regular expression, hash by another SHA-256), from the rule in
// docs/real-data.md, "Page names".
func TestStems(t *testing.T) {
	tau2Long := "[mms_issue]airplane_mode_on|bad_network_preference|bad_wifi_calling|break_apn_mms_setting|break_app_storage_permission|data_mode_off|data_usage_exceeded|unseat_sim_card|user_abroad_roaming_disabled_on[PERSONA:Easy]"
	tests := []struct {
		name string
		ids  []string
		want []string
	}{
		{"safe ids keep their names", []string{"ER-001", "x.", "ab-" + strings.Repeat("c", 38) + ".def", "A_b-9"},
			[]string{"ER-001", "x.", "ab-" + strings.Repeat("c", 38) + ".def", "A_b-9"}},
		{"a τ²-bench id of 214 characters", []string{tau2Long}, []string{"mms_issue-airplane_mode_on-bad_network_-707f18ce1d83"}},
		{"a bracketed id", []string{"[mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:None]"},
			[]string{"mobile_data_issue-airplane_mode_on-data-2ab55949613d"}},
		{"Unicode: each run of other characters is one dash", []string{"Ünïcödé ✓"}, []string{"n-c-d-6838c2cf2692"}},
		{"nothing of the id is left", []string{"漢字", "...", "--"}, []string{"c6d297713595", "ab5df625bc76", "d8156bae0c42"}},
		{"NFC and NFD are two ids, two pages", []string{"\u00e9", "e\u0301"}, []string{"4a99557e4033", "e-bf12767b0f2a"}},
		{"equal ignoring case: both hashed", []string{"ER-1", "er-1", "ER-2"}, []string{"ER-1-7a7231d70d07", "er-1-ca0cd92acb51", "ER-2"}},
		{"too long for a safe id", []string{strings.Repeat("a", 65)}, []string{strings.Repeat("a", 40) + "-635361c48bb9"}},
		{"dots and dashes trimmed", []string{".hidden", "-x-", "a b", "#1"}, []string{"hidden-1692419006a8", "x-c6cf95e52d17", "a-b-c8687a08aa5d", "1-0b0fa0b2280a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Stems(tt.ids); !slices.Equal(got, tt.want) {
				t.Errorf("Stems(%q)\n got %q\nwant %q", tt.ids, got, tt.want)
			}
		})
	}
}

// TestStemsReturnsSafeIDsAsTheyAre: a suite of safe ids, every suite
// until now, pays nothing.
func TestStemsReturnsSafeIDsAsTheyAre(t *testing.T) {
	ids := []string{"ER-001", "ER-002"}
	if got := Stems(ids); &got[0] != &ids[0] {
		t.Error("safe ids were copied")
	}
}

// TestStemsEndsAClashWithAHashedName: an id that is literally another's
// hashed name clashes with it once that one is hashed; both end hashed,
// and apart.
func TestStemsEndsAClashWithAHashedName(t *testing.T) {
	ids := []string{"Foo", "foo", Hashed("foo")}
	got := Stems(ids)
	checkStems(t, ids, got)
	if got[2] == ids[2] {
		t.Errorf("%q kept its name although it is another's page: %q", ids[2], got)
	}
}

// checkStems checks what every list of stems must be: one per id, made
// of [A-Za-z0-9._-], never equal ignoring case, each the id itself or
// its hashed form.
func checkStems(t *testing.T, ids, stems []string) {
	t.Helper()
	if len(stems) != len(ids) {
		t.Fatalf("%d stems for %d ids", len(stems), len(ids))
	}
	seen := map[string]int{}
	for i, s := range stems {
		if s == "" || strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" {
			t.Fatalf("stem %q of %q is not a safe name", s, ids[i])
		}
		if s != ids[i] && s != Hashed(ids[i]) && s != hashedWith(ids[i], 64) {
			t.Fatalf("stem %q of %q is neither the id nor its hashed form", s, ids[i])
		}
		if s == ids[i] && !suite.SafeID(s) {
			t.Fatalf("unsafe id %q kept as its own name", s)
		}
		if j, ok := seen[strings.ToLower(s)]; ok {
			t.Fatalf("%q and %q share the page %q ignoring case", ids[j], ids[i], s)
		}
		seen[strings.ToLower(s)] = i
	}
}

// FuzzStems: whatever the ids, the stems are safe names, apart ignoring
// case, and the same from run to run.
func FuzzStems(f *testing.F) {
	f.Add("ER-1\ner-1\n[a]b|c\n\u00e9\ne\u0301")
	f.Add("a\nA\n" + Hashed("a"))
	f.Add(strings.Repeat("x", 300))
	f.Fuzz(func(t *testing.T, joined string) {
		var ids []string
		seen := map[string]bool{}
		for _, id := range strings.Split(joined, "\n") {
			if id != "" && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
		stems := Stems(ids)
		checkStems(t, ids, stems)
		if again := Stems(slices.Clone(ids)); !slices.Equal(again, stems) {
			t.Fatalf("Stems changed from run to run: %q / %q", stems, again)
		}
	})
}

// BenchmarkStems names the pages of 100,000 bracketed ids, two by two
// equal ignoring case, as a large imported suite may have.
func BenchmarkStems(b *testing.B) {
	ids := make([]string, 100_000)
	for i := range ids {
		ids[i] = fmt.Sprintf("[task_%d]step|%s", i/2, map[bool]string{true: "A", false: "a"}[i%2 == 0])
	}
	for b.Loop() {
		Stems(ids)
	}
}

// BenchmarkStemsSafe is BenchmarkStems for safe ids, the common case.
func BenchmarkStemsSafe(b *testing.B) {
	ids := make([]string, 100_000)
	for i := range ids {
		ids[i] = fmt.Sprintf("GEN-%06d", i)
	}
	for b.Loop() {
		Stems(ids)
	}
}
