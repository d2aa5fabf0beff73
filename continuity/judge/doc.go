// Package judge holds the closer's judges: implementations of
// continuity.Judge, which decide which of a closed run's briefed
// commitments the run shows as done. A judge never writes; the closer keeps
// only ids that were briefed and resolves them (resolve only, reversible).
//
// Reference is deterministic and free: it resolves a commitment only when
// the run's last Stop excerpt names it after a completion marker ("done:
// lease", "resolved 0190f1c2", "- [x] docs"), not negated, or when the
// run's own events end the commitment on a resolve. LLM asks a model over
// an Anthropic-Messages-compatible endpoint with a bounded prompt, reads a
// strict JSON verdict, and meters tokens and cost per tenant against a cap.
// Package continuity/judge/eval measures a judge against labelled sessions
// with the figures of the seed's validation bar.
//
// Neither judge logs; no error carries the excerpt, a prompt, an answer's
// text or the API key.
//
// Files:
//
//	case.go       CheckCase: the bounds a case from outside must keep; MaxCompleted
//	reference.go  Reference, its marker grammar (CompletionWords, NonAssertiveWords, MinIDPrefix)
//	llm.go        LLM and LLMConfig: the prompt, the call, ParseVerdict, the errors
//	meter.go      Cap, and the meter: per-tenant spend in fixed windows, reserve before a call, settle after
package judge
