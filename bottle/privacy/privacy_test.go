package privacy

import (
	"os"
	"strings"
	"testing"
)

func TestScrub(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"no tags", "  plain text  ", "plain text"},
		{"private", "a <private>secret</private> b", "a  b"},
		{"every tag", "1<private>p</private>2<system-reminder>r</system-reminder>3<system_instruction>i</system_instruction>4" +
			"<system-instruction>j</system-instruction>5<persisted-output>o</persisted-output>6<baton-context>c</baton-context>7", "1234567"},
		{"attributes", `x<private reason="token" id=1>secret</private>y`, "xy"},
		{"multi-line", "x<private>\nline1\nline2\n</private>y", "xy"},
		{"non-greedy", "<private>a</private>keep<private>b</private>", "keep"},
		{"unclosed fails closed", "before <private>no end", "before"},
		{"unclosed with attributes", "a <private reason=x>rest\nmore", "a"},
		{"unfinished opening tag", "a <private reason='x' rest", "a"},
		{"unclosed after a complete block", "a<private>x</private>b <private>c", "ab"},
		{"unclosed before a complete block", "a <private>b <baton-context>c</baton-context> d", "a"},
		{"unclosed reminder", "keep <system-reminder>\nctx", "keep"},
		{"unclosed upper case", "keep <PRIVATE>s", "keep"},
		{"earliest unclosed wins", "k <persisted-output>o <private>p", "k"},
		{"all unclosed is empty", "<private>everything", ""},
		{"bare tag name at the end kept", "a <private", "a <private"},
		{"stray close left alone", "text </private> more", "text </private> more"},
		{"case-insensitive", "x<PRIVATE>s</Private>y", "xy"},
		{"close with space", "x<private>s</private >y", "xy"},
		{"prefix is not the tag", "x<privateer>s</privateer>y", "x<privateer>s</privateer>y"},
		{"self-closing untouched", "x<private/>y", "x<private/>y"},
		{"all private is empty", " <private>only</private>\n", ""},
		{"reminder-only is empty", "<system-reminder>\nctx\n</system-reminder>", ""},
		{"nested same tag keeps tail", "<private><private>a</private>b</private>c", "b</private>c"},
		{"rejoined element removed", "<pri<private>x</private>vate>y</private>z", "z"},
		{"other tags untouched", "<b>bold</b> <command-name>/x</command-name>", "<b>bold</b> <command-name>/x</command-name>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Scrub(c.in); got != c.want {
				t.Errorf("Scrub(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestResidue(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"plain", ""},
		{"a <private>s</private> b", "private"},
		{"<baton-context>c</baton-context>", ContextTag},
		{"unclosed <private>s", "private"},
		{"unclosed <private reason=x", "private"},
		{"a <private", ""},
		{"x<private/>y", ""},
		{"<ſystem-reminder>s</ſystem-reminder>", ""}, // ASCII tags only, as Scrub sees them
		{"x<privateer>s</privateer>y", ""},
	}
	for _, c := range cases {
		if got := Residue(c.in); got != c.want {
			t.Errorf("Residue(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := Residue(Scrub(c.in)); got != "" {
			t.Errorf("Residue(Scrub(%q)) = %q, want none", c.in, got)
		}
	}
}

func FuzzScrub(f *testing.F) {
	// Seed with every line of a real transcript, the bottle's own fixture.
	raw, err := os.ReadFile("../testdata/claude-2.1.328.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range strings.SplitAfter(string(raw), "\n") {
		f.Add(line)
	}
	for _, s := range []string{"<private>a</private>", "<pri<private>x</private>vate>y</private>", "<private x='>'>a</private>", "<private>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Scrub(s)
		if len(out) > len(s) {
			t.Fatalf("Scrub grew its input: %q → %q", s, out)
		}
		if tag := Residue(out); tag != "" {
			t.Fatalf("a complete <%s> element survived: %q → %q", tag, s, out)
		}
		if strings.TrimSpace(out) != out {
			t.Fatalf("untrimmed output %q", out)
		}
	})
}
