package privacy

import (
	"os"
	"strings"
	"testing"
)

// adversarial is the input a probe found Scrub quadratic on when it peeled
// one rejoined layer per pass: removing the block in the middle joins
// "<pri" and "vate>" into a new opening tag, k times over.
func adversarial(k int) string {
	return strings.Repeat("<pri", k) + "<private>x</private>" + strings.Repeat("vate>y</private>", k)
}

func TestScrub(t *testing.T) {
	deep := func(open, close int) string {
		return "head " + strings.Repeat("<private>", open) + "SECRET" + strings.Repeat("</private>", close) + " tail"
	}
	cases := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"no tags", "  plain text  ", "plain text"},
		{"private", "a <private>secret</private> b", "a b"},
		{"private between blanks keeps one blank", "a\t<private>x</private>  b", "a\t b"},
		{"private against a word keeps the blank", "a <private>x</private>b", "a b"},
		{"two private blocks in a row", "a <private>x</private> <private>y</private> b", "a b"},
		{"the person's own double space kept", "a  b <private>x</private> c", "a  b c"},
		{"block at the start", "<private>x</private> b", "b"},
		{"block at the end", "a <private>x</private>", "a"},
		{"line breaks around a block kept", "a\n<private>x</private>\nb", "a\n\nb"},
		{"every tag", "1<private>p</private>2<system-reminder>r</system-reminder>3<system_instruction>i</system_instruction>4" +
			"<system-instruction>j</system-instruction>5<persisted-output>o</persisted-output>6<baton-context>c</baton-context>7", "1234567"},
		{"attributes", `x<private reason="token" id=1>secret</private>y`, "xy"},
		{"attributes end at the first '>'", `x<private a='>'>s</private>y`, "xy"},
		{"attributes over lines", "x<private\n  reason=\"a\"\n>s</private>y", "xy"},
		{"multi-line", "x<private>\nline1\nline2\n</private>y", "xy"},
		{"non-greedy", "<private>a</private>keep<private>b</private>", "keep"},
		{"unclosed fails closed", "before <private>no end", "before"},
		{"unclosed with attributes", "a <private reason=x>rest\nmore", "a"},
		{"unfinished opening tag", "a <private reason='x' rest", "a"},
		{"opening tag ended by a line break", "a <private\nb", "a"},
		{"unclosed after a complete block", "a<private>x</private>b <private>c", "ab"},
		{"unclosed before a complete block", "a <private>b <baton-context>c</baton-context> d", "a"},
		{"unclosed reminder", "keep <system-reminder>\nctx", "keep"},
		{"unclosed upper case", "keep <PRIVATE>s", "keep"},
		{"earliest unclosed wins", "k <persisted-output>o <private>p", "k"},
		{"all unclosed is empty", "<private>everything", ""},
		{"bare tag name at the end dropped: whatever follows it makes it a tag", "a <private", "a"},
		{"bare tag names at the end, one after the other", "a <private<PRIVATE", "a"},
		{"a bare tag name left at the end by an unclosed block (fuzz)", "<privAte<privAte ", ""},
		{"a name's prefix at the end kept", "a <privat", "a <privat"},
		{"a longer name at the end kept", "a <privates", "a <privates"},
		{"stray close left alone", "text </private> more", "text </private> more"},
		{"stray close before a block", "</private>a <private>s</private> b", "</private>a b"},
		{"stray close of another tag", "a </system-reminder> b", "a </system-reminder> b"},
		{"case-insensitive", "x<PRIVATE>s</Private>y", "xy"},
		{"mixed case", "x<pRiVaTe>s</PrIvAtE>y", "xy"},
		{"upper-case reminder", "x<SYSTEM-REMINDER>s</system-reminder>y", "xy"},
		{"no Unicode folding", "x<ſystem-reminder>s</ſystem-reminder>y", "x<ſystem-reminder>s</ſystem-reminder>y"},
		{"close with space", "x<private>s</private >y", "xy"},
		{"close with line break and tab", "x<private>s</private\n\t>y", "xy"},
		{"close with attributes is no close", "x<private>s</private a>y", "x"},
		{"close without '>' is no close", "x<private>s</private", "x"},
		{"prefix is not the tag", "x<privateer>s</privateer>y", "x<privateer>s</privateer>y"},
		{"self-closing untouched", "x<private/>y", "x<private/>y"},
		{"all private is empty", " <private>only</private>\n", ""},
		{"reminder-only is empty", "<system-reminder>\nctx\n</system-reminder>", ""},
		{"other tags untouched", "<b>bold</b> <command-name>/x</command-name>", "<b>bold</b> <command-name>/x</command-name>"},

		// Nesting: a block ends at its own closing tag.
		{"nested same tag", "<private>a <private>b</private> SECRET</private>", ""},
		{"nested same tag between words", "x <private>a <private>b</private> SECRET</private> y", "x y"},
		{"nested same tag keeps what follows", "<private><private>a</private>b</private>c", "c"},
		{"nested different tags", "a<private>x<system-reminder>y</system-reminder>SECRET</private>b", "ab"},
		{"a close ends the blocks opened inside it", "a<private>x<system-reminder>y</private>b", "ab"},
		{"crossed tags: the outer close ends both", "a<system-reminder>x<private>y</system-reminder>b</private>c", "ab</private>c"},
		{"a close of a tag not open is content", "a<private>x</system-reminder>SECRET</private>b", "ab"},
		{"nested, inner closed, outer unclosed", "a <private>x <private>y</private> SECRET", "a"},
		{"nested block between blanks", "a <private>x <private>y</private> z</private> b", "a b"},
		{"deep nesting closed", deep(1000, 1000), "head tail"},
		{"deep nesting unclosed", deep(1000, 999), "head"},

		// Seams: text on the two sides of a removed block forms a new tag.
		{"rejoined element removed", "<pri<private>x</private>vate>y</private>z", "z"},
		{"rejoined element between words", "a <pri<private>x</private>vate>y</private> b", "a b"},
		{"rejoined element with attributes", "<pri<private>x</private>vate id=1>y</private>z", "z"},
		{"rejoined opening tag left unclosed", "k <pri<private>x</private>vate>rest", "k"},
		{"rejoined by the blank after a block", "a<private<private>x</private> y", "a"},
		{"rejoined layers, the probe's input", adversarial(50000), ""},

		// Bytes outside blocks are kept as they were.
		{"invalid UTF-8 and NUL outside kept", "\xff\x00a <private>\xfe\x00s</private> b\x00\xff", "\xff\x00a b\x00\xff"},
		{"NUL in a tag name is no tag", "a<pri\x00vate>s</private>", "a<pri\x00vate>s</private>"},
		{"NUL ending a tag name is no tag", "a<private\x00>s", "a<private\x00>s"},
		{"invalid UTF-8 and NUL inside a block", "a<private>\xff<private\x00>\xfe</private>b", "ab"},
		{"invalid UTF-8 in attributes", "a<private \xff\x00>s</private>b", "ab"},
		{"invalid UTF-8 right after a block", "a<private>s</private>\xffb", "a\xffb"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Scrub(c.in)
			if got != c.want {
				t.Errorf("Scrub(%.200q) = %.200q, want %.200q", c.in, got, c.want)
			}
			if tag := Residue(got); tag != "" {
				t.Errorf("Residue(Scrub(%.200q)) = %q", c.in, tag)
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
		{"an opening tag ended by a line break <private\n", "private"},
		{"<PRIVATE>", "private"},
		{"<pri<private>", "private"},
		{"a <private", ""},
		{"x<private/>y", ""},
		{"a </private> b", ""}, // a stray close hides nothing
		{"</private>", ""},
		{"<private\x00>", ""},
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

// TestScrubPart: the parts of one text, scrubbed in turn, keep nothing of
// a block that opens in one part and closes in a later one.
func TestScrubPart(t *testing.T) {
	cases := []struct {
		name       string
		parts      []string
		want       []string
		wantOpened string // what the last part leaves open
	}{
		{"a block split across two parts", []string{"a <private>s1", "s2</private> b"}, []string{"a", "b"}, ""},
		{"across three parts", []string{"<private>s1", "s2", "s3</private>b"}, []string{"", "", "b"}, ""},
		{"nested across parts", []string{"<private>a<private>b", "</private>S", "</private>c"}, []string{"", "", "c"}, ""},
		{"different tags across parts", []string{"<private>a<system-reminder>b", "</system-reminder>S", "</private>c"}, []string{"", "", "c"}, ""},
		{"closed within a part leaves nothing open", []string{"a <private>s</private>", "b"}, []string{"a", "b"}, ""},
		{"unclosed to the end", []string{"a <private>s", "t", "u"}, []string{"a", "", ""}, "<private>"},
		{"what stays open, outermost first", []string{"<private>a<system-reminder>b"}, []string{""}, "<private><system-reminder>"},
		{"a line break breaks a tag name", []string{"x <pri", "vate>y"}, []string{"x <pri", "vate>y"}, ""},
		{"a tag name at a part's end opens a block", []string{"x <private", ">s</private> y"}, []string{"x", "y"}, ""},
		{"unfinished attributes carry over", []string{"a <private id='", "'>s</private>b"}, []string{"a", "b"}, ""},
		{"a stray close in a later part is text", []string{"a", "</private> b"}, []string{"a", "</private> b"}, ""},
		{"plain parts", []string{" a ", "b"}, []string{"a", "b"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			open := ""
			for i, part := range c.parts {
				var kept string
				kept, open = ScrubPart(open, part)
				if kept != c.want[i] {
					t.Errorf("part %d %q kept %q, want %q", i, part, kept, c.want[i])
				}
				if tag := Residue(kept); tag != "" {
					t.Errorf("part %d %q kept a <%s>: %q", i, part, tag, kept)
				}
			}
			if open != c.wantOpened {
				t.Errorf("left open %q, want %q", open, c.wantOpened)
			}
		})
	}
}

func FuzzScrub(f *testing.F) {
	// Seed with every line of a real transcript, the bottle's own fixture.
	raw, err := os.ReadFile("../testdata/claude-2.1.328.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range strings.SplitAfter(string(raw), "\n") {
		f.Add(line, uint16(len(line)/2))
	}
	for _, s := range []string{"<private>a</private>", "<pri<private>x</private>vate>y</private>", "<private x='>'>a</private>", "<private>",
		"<private>a<private>b</private>c</private>", "a <private", "</private>", adversarial(3)} {
		f.Add(s, uint16(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, s string, cut uint16) {
		out := Scrub(s)
		if len(out) > len(s) {
			t.Fatalf("Scrub grew its input: %q → %q", s, out)
		}
		if tag := Residue(out); tag != "" {
			t.Fatalf("a <%s> opening tag survived: %q → %q", tag, s, out)
		}
		if strings.TrimSpace(out) != out {
			t.Fatalf("untrimmed output %q", out)
		}
		// In two parts, neither part nor their join keeps a tag, and what
		// is left open is opening tags alone.
		at := int(cut) % (len(s) + 1)
		k1, open := ScrubPart("", s[:at])
		k2, open2 := ScrubPart(open, s[at:])
		if tag := Residue(k1 + "\n\n" + k2); tag != "" {
			t.Fatalf("a <%s> opening tag survived in parts: %q | %q → %q | %q", tag, s[:at], s[at:], k1, k2)
		}
		for _, o := range []string{open, open2} {
			for o != "" {
				tag := openingAt(o)
				if tag < 0 || o[1+len(scrubbedTags[tag])] != '>' {
					t.Fatalf("left open %q is not opening tags", o)
				}
				o = o[len(scrubbedTags[tag])+2:]
			}
		}
	})
}

// FuzzScrubNested wraps a secret in blocks of random tags nested to a
// random depth, with random text before, between and after them, and
// asserts the secret never survives: not in Scrub's output, and not in any
// part when the pieces are scrubbed one by one as the parts of a message.
// The random text inside the blocks holds no '/', so that it closes
// nothing; anything else in it (opening tags, unfinished attributes) can
// only hide more.
func FuzzScrubNested(f *testing.F) {
	f.Add("before ", " after", "filler", uint8(1), uint64(0), uint64(0))
	f.Add("<pri", "vate>", "<private x", uint8(3), uint64(12345), uint64(0xffff))
	f.Add("a <private>x</private> ", "", "\xff", uint8(11), uint64(1<<40), uint64(0x5555))
	f.Fuzz(func(t *testing.T, before, after, inner string, depth uint8, tags, style uint64) {
		const secret = "\x00secret\x00" // no other piece holds a NUL
		before, after = strings.ReplaceAll(before, "\x00", ""), strings.ReplaceAll(after, "\x00", "")
		inner = strings.NewReplacer("\x00", "", "/", "").Replace(inner)
		n := int(depth)%12 + 1
		pieces := []string{before}
		var closes []string
		for range n {
			name := scrubbedTags[tags%uint64(len(scrubbedTags))]
			tags /= uint64(len(scrubbedTags))
			open, close := name, name
			if style&1 != 0 {
				open = strings.ToUpper(name)
			}
			if style&2 != 0 {
				open += " data-x='1'\n"
			}
			if style&4 != 0 {
				close += " \n"
			}
			style >>= 3
			pieces = append(pieces, "<"+open+">", inner)
			closes = append(closes, "</"+close+">")
		}
		pieces = append(pieces, secret)
		for i := len(closes) - 1; i >= 0; i-- {
			pieces = append(pieces, inner, closes[i])
		}
		pieces = append(pieces, after)
		whole := strings.Join(pieces, "")
		if out := Scrub(whole); strings.Contains(out, secret) {
			t.Fatalf("the secret survived: %q → %q", whole, out)
		}
		open := ""
		for i, p := range pieces {
			var kept string
			if kept, open = ScrubPart(open, p); strings.Contains(kept, secret) {
				t.Fatalf("the secret survived in part %d of %q: %q", i, pieces, kept)
			}
		}
	})
}

// The benchmarks compare Scrub on the probe's adversarial input with Scrub
// on plain prose of the same length that holds one private block (so that
// it takes the scanning path, not the fast path for text without '<'):
//
//	go test -run '^$' -bench Scrub -benchmem ./bottle/privacy
//
// A linear Scrub keeps the ratio of their ns/op near one, whatever the
// length; the repeated-pass Scrub it replaced took seconds on 100 KB.
const benchLen = 100 << 10

func benchScrub(b *testing.B, s string) {
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Scrub(s)
	}
}

func BenchmarkScrubAdversarial(b *testing.B) {
	benchScrub(b, adversarial(benchLen/20))
}

func BenchmarkScrubPlain(b *testing.B) {
	s := "We met at noon. <private>the token is hunter2</private> Then we talked about the plan. "
	s += strings.Repeat("lorem ipsum dolor sit amet, consectetur adipiscing elit. ", benchLen/57+1)
	benchScrub(b, s[:len(adversarial(benchLen/20))])
}
