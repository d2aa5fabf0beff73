package continuity

import (
	"context"

	"github.com/batonhq/baton/provenance"
	"github.com/google/uuid"
)

// Judge decides which of a closed run's briefed commitments the run shows as
// done. The closer asks it once per claimed row and keeps only ids that were
// briefed; a judge never writes. The call's context ends when the claim's
// TTL (WithCloserClaimTTL) has passed, and a judge that panics fails its
// row's pass (backed off, as any failure) rather than the worker.
// Implementations: the deterministic reference judge and the LLM judge
// (package continuity/judge).
type Judge interface {
	Judge(ctx context.Context, c JudgeCase) (Verdict, error)
}

// JudgeCase is what the closer knows of one closed run.
type JudgeCase struct {
	// Tenant owns the run; a judge with a per-tenant budget meters by it.
	Tenant    string
	Agent     string
	SessionID string
	RunID     uuid.UUID
	// Excerpt is the run's last Stop excerpt (bounded; may be empty).
	Excerpt string
	// Events is the run's provenance, oldest first.
	Events []provenance.Item
	// Commitments are the briefed commitments still open, read live.
	Commitments []Memory
}

// Verdict is a judge's answer: the ids it finds done, and what asking cost.
type Verdict struct {
	Completed []uuid.UUID
	Usage     JudgeUsage
}

// JudgeUsage is what one verdict cost: tokens and an estimate in micro-USD.
// A deterministic judge reports zero.
type JudgeUsage struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
	CostMicroUSD int64 `json:"costMicroUsd"`
}
