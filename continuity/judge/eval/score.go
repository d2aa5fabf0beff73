package eval

import (
	"strconv"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// Bar is one line of the seed's validation bar: a figure must lie strictly
// above Percent (Above) or at most at it.
type Bar struct {
	Above   bool `json:"above"`
	Percent int  `json:"percent"`
}

// The validation bar of the session-continuity seed, for turning the closer
// on by default. "Near the curated path's zero" is read as at most 5 %.
var (
	// CommitmentRecallBar: a positive improvement on the 0 % baseline.
	CommitmentRecallBar = Bar{Above: true, Percent: 0}
	// OverallRecallBar: strictly above the curated path's 26 %.
	OverallRecallBar = Bar{Above: true, Percent: 26}
	// SpuriousBar and DuplicateBar: near the curated path's zero.
	SpuriousBar  = Bar{Above: false, Percent: 5}
	DuplicateBar = Bar{Above: false, Percent: 5}
)

// String renders the bar: "> 26%", "<= 5%".
func (b Bar) String() string {
	op := "<="
	if b.Above {
		op = ">"
	}
	return op + " " + strconv.Itoa(b.Percent) + "%"
}

// holds reports whether num/den meets the bar, in integers. An empty
// denominator meets an at-most bar (nothing resolved, nothing wrong: the
// seed's "captures nothing still scores zero-spurious") and never an above
// bar (no evidence of recall).
func (b Bar) holds(num, den int) bool {
	if den == 0 {
		return !b.Above
	}
	if b.Above {
		return num*100 > b.Percent*den
	}
	return num*100 <= b.Percent*den
}

// Figure is one measured rate beside its bar.
type Figure struct {
	Num int `json:"numerator"`
	Den int `json:"denominator"`
	// Percent is Num/Den in percent; nil when a recall has nothing to
	// recall (Den 0). A rate of nothing resolved is 0.
	Percent *float64 `json:"percent"`
	Bar     Bar      `json:"bar"`
	Pass    bool     `json:"pass"`
}

func figure(num, den int, bar Bar) Figure {
	f := Figure{Num: num, Den: den, Bar: bar, Pass: bar.holds(num, den)}
	switch {
	case den > 0:
		p := float64(num) * 100 / float64(den)
		f.Percent = &p
	case !bar.Above:
		p := 0.0
		f.Percent = &p
	}
	return f
}

// Result is one session's outcome.
type Result struct {
	Name string `json:"name"`
	// Resolved are the briefed ids the judge named, repeats kept.
	Resolved []uuid.UUID `json:"resolved"`
	// Missed are labelled ids it did not name; Spurious are named ids not
	// labelled; Duplicate are named ids already named (earlier in this
	// verdict or in an earlier session).
	Missed    []uuid.UUID `json:"missed,omitempty"`
	Spurious  []uuid.UUID `json:"spurious,omitempty"`
	Duplicate []uuid.UUID `json:"duplicate,omitempty"`
	// Ignored are ids the judge named that were not briefed: the closer
	// drops them, so they count in no figure.
	Ignored []uuid.UUID           `json:"ignored,omitempty"`
	Usage   continuity.JudgeUsage `json:"usage"`
	Error   string                `json:"error,omitempty"`
}

// Report is a judge's figures over a labelled set.
type Report struct {
	Judge    string `json:"judge"`
	Sessions int    `json:"sessions"`
	// Briefed counts the commitments judged; Labelled those labelled
	// completed; Resolved the briefed ids named (repeats kept); Failed the
	// sessions whose judge call failed.
	Briefed  int `json:"briefed"`
	Labelled int `json:"labelled"`
	Resolved int `json:"resolved"`
	Failed   int `json:"failed"`
	// CommitmentRecall = labelled ids named / labelled ids.
	CommitmentRecall Figure `json:"commitmentRecall"`
	// OverallRecall = (labelled ids named + other candidates recorded) /
	// (labelled ids + other candidates): the seed's recall over every
	// worth-keeping item, of which a resolve-only closer can add only the
	// commitments.
	OverallRecall Figure `json:"overallRecall"`
	// SpuriousRate = named ids not labelled / named ids.
	SpuriousRate Figure `json:"spuriousRate"`
	// DuplicateRate = named ids already named / named ids.
	DuplicateRate Figure                `json:"duplicateRate"`
	Usage         continuity.JudgeUsage `json:"usage"`
	Results       []Result              `json:"results"`
}

// Pass reports whether every figure meets its bar.
func (r Report) Pass() bool {
	return r.CommitmentRecall.Pass && r.OverallRecall.Pass && r.SpuriousRate.Pass && r.DuplicateRate.Pass
}

// Score computes the figures of verdicts, one per session in order.
func Score(sessions []Session, verdicts []Verdict) Report {
	r := Report{Sessions: len(sessions), Results: make([]Result, len(sessions))}
	var hits, candidates, recorded, spurious, duplicates int
	named := map[uuid.UUID]bool{}
	for i, s := range sessions {
		v := verdicts[i]
		res := Result{Name: s.Name, Usage: v.Usage, Error: v.Err}
		briefed := map[uuid.UUID]bool{}
		for _, m := range s.Commitments {
			briefed[m.ID] = true
		}
		labelled := map[uuid.UUID]bool{}
		for _, id := range s.Completed {
			labelled[id] = true
		}
		hit := map[uuid.UUID]bool{}
		for _, id := range v.Completed {
			if !briefed[id] {
				res.Ignored = append(res.Ignored, id)
				continue
			}
			res.Resolved = append(res.Resolved, id)
			if !labelled[id] {
				res.Spurious = append(res.Spurious, id)
			}
			if named[id] {
				res.Duplicate = append(res.Duplicate, id)
			}
			named[id] = true
			hit[id] = labelled[id]
		}
		for _, id := range s.Completed {
			if hit[id] {
				hits++
			} else {
				res.Missed = append(res.Missed, id)
			}
		}
		if v.Err != "" {
			r.Failed++
		}
		r.Briefed += len(s.Commitments)
		r.Labelled += len(s.Completed)
		r.Resolved += len(res.Resolved)
		spurious += len(res.Spurious)
		duplicates += len(res.Duplicate)
		candidates += s.OtherCandidates
		recorded += s.OtherRecorded
		r.Usage.InputTokens += v.Usage.InputTokens
		r.Usage.OutputTokens += v.Usage.OutputTokens
		r.Usage.CostMicroUSD += v.Usage.CostMicroUSD
		r.Results[i] = res
	}
	r.CommitmentRecall = figure(hits, r.Labelled, CommitmentRecallBar)
	r.OverallRecall = figure(hits+recorded, r.Labelled+candidates, OverallRecallBar)
	r.SpuriousRate = figure(spurious, r.Resolved, SpuriousBar)
	r.DuplicateRate = figure(duplicates, r.Resolved, DuplicateBar)
	return r
}
