// Package eval measures a judge against labelled sessions, with the figures
// of the session-continuity seed's validation bar, so a team can decide
// whether to turn the closer on (`baton eval DIR`).
//
// A labelled set is a directory of JSON files, one session each (*.json,
// read in name order; other files are ignored). A session is one strict
// object (an unknown key is an error):
//
//	{
//	  "name": "done-by-topic",                 // unique in the set, 1-200 characters
//	  "note": "what the session shows",        // optional, for readers
//	  "excerpt": "Done: lease. ...",           // the run's last Stop excerpt (at most 4000 characters)
//	  "events": [                              // optional: the run's provenance, oldest first
//	    {"memoryId": "…", "eventKind": "resolve", "createdAt": "2026-11-30T10:05:00Z"}
//	  ],                                       // (also id, actorKind, sessionRunId; each optional)
//	  "commitments": [                         // the briefed commitments still open (at most 100)
//	    {"id": "…", "topic": "lease", "content": "fix the lease", "updatedAt": "…"}   // updatedAt optional
//	  ],
//	  "completed": ["…"],                      // the ids a person says the run completed
//	  "otherCandidates": 0,                    // optional: other worth-keeping atoms a person finds
//	  "otherRecorded": 0                       // optional: how many of those the run recorded itself
//	}
//
// A completed id must be one of the session's commitments, and a commitment
// is labelled completed in at most one session of a set.
//
// The figures, pooled over the set (Score):
//
//	commitment recall      labelled ids the judge named / labelled ids                 bar: > 0%   (the 0% baseline)
//	overall recall         (labelled ids named + otherRecorded) /
//	                       (labelled ids + otherCandidates)                              bar: > 26%  (the curated path)
//	spurious-resolve rate  named ids not labelled / named ids                           bar: <= 5%  ("near zero")
//	duplicate rate         named ids already named, in the verdict or an earlier
//	                       session / named ids                                          bar: <= 5%  ("near zero")
//
// Named ids are the briefed ids a verdict lists, repeats kept; an id not
// briefed counts in no figure (the closer drops it). With nothing named the
// two rates are 0% and pass (a closer that resolves nothing resolves nothing
// wrongly, as the seed says); with nothing labelled a recall is n/a and
// fails. A session whose judge call fails resolves nothing and is counted.
//
// testdata/sessions is the shipped set, built from the repository's own
// storetest scenarios; its README says what each session tests.
//
// Files:
//
//	eval.go    Session, Commitment, Load, Run, Verdict
//	score.go   Bar and the validation bar, Figure, Result, Report, Score
//	render.go  WriteText: the figures beside their bars, PASS or FAIL
package eval
