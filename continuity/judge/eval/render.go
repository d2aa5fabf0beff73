package eval

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText prints r for a person: the counts, the four figures each beside
// its bar with PASS or FAIL, what the judge cost, and the sessions that
// missed, resolved spuriously or twice, or failed.
func WriteText(w io.Writer, r Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "judge %s over %d sessions: %d commitments briefed, %d labelled completed, %d resolved, %d failed\n\n",
		r.Judge, r.Sessions, r.Briefed, r.Labelled, r.Resolved, r.Failed)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tmeasured\tbar\tresult")
	for _, l := range []struct {
		name string
		f    Figure
	}{
		{"commitment recall", r.CommitmentRecall},
		{"overall recall", r.OverallRecall},
		{"spurious-resolve rate", r.SpuriousRate},
		{"duplicate rate", r.DuplicateRate},
	} {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", l.name, measured(l.f), l.f.Bar, verdict(l.f.Pass))
	}
	tw.Flush()
	fmt.Fprintf(&b, "\njudge usage: %d input tokens, %d output tokens, %d micro-USD\n", r.Usage.InputTokens, r.Usage.OutputTokens, r.Usage.CostMicroUSD)
	var off []string
	for _, res := range r.Results {
		var what []string
		for _, c := range []struct {
			n    int
			name string
		}{{len(res.Missed), "missed"}, {len(res.Spurious), "spurious"}, {len(res.Duplicate), "duplicate"}, {len(res.Ignored), "not briefed"}} {
			if c.n > 0 {
				what = append(what, fmt.Sprintf("%d %s", c.n, c.name))
			}
		}
		if res.Error != "" {
			what = append(what, "failed: "+res.Error)
		}
		if len(what) > 0 {
			off = append(off, "  "+res.Name+": "+strings.Join(what, ", "))
		}
	}
	if len(off) > 0 {
		b.WriteString("\nsessions off the labels:\n" + strings.Join(off, "\n") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func measured(f Figure) string {
	if f.Percent == nil {
		return fmt.Sprintf("n/a (%d/%d)", f.Num, f.Den)
	}
	return fmt.Sprintf("%.1f%% (%d/%d)", *f.Percent, f.Num, f.Den)
}

func verdict(pass bool) string {
	if pass {
		return "PASS"
	}
	return "FAIL"
}
