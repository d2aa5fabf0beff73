package continuity

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
)

// ReceiptParams names a provider lifecycle event that arrived. Provider and
// ProviderEvent are data (for example "claude-code" and "Stop"); the ledger
// vocabulary never enumerates them.
type ReceiptParams struct {
	Provider      string `json:"provider"`
	ProviderEvent string `json:"providerEvent"`
	Agent         string `json:"agent,omitempty"`
	SessionID     string `json:"sessionId,omitempty"`

	// expects is EventParams.expects, set only by the episode methods.
	expects string
}

const maxReceiptField = 64

func (p *ReceiptParams) normalize(tenant string) (string, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	p.Provider = trimField(f, "provider", p.Provider, 1, maxReceiptField)
	p.ProviderEvent = trimField(f, "providerEvent", p.ProviderEvent, 1, maxReceiptField)
	if p.Agent != "" {
		if r := varErr(p.Agent, "agent"); r != "" {
			f["agent"] = r
		}
	}
	p.SessionID = sessionIDField(f, "sessionId", p.SessionID, false)
	return tenant, fieldsErr(f)
}

// AppendReceipt appends provider.event.received and returns its id. Use it
// when the work that follows runs elsewhere (the HTTP receipts route);
// otherwise prefer Receive.
//
// Errors: invalid, internal.
func (s *Service) AppendReceipt(ctx context.Context, tenant string, p ReceiptParams) (uuid.UUID, error) {
	tenant, err := p.normalize(tenant)
	if err != nil {
		return uuid.Nil, err
	}
	e := LedgerEntry{ID: s.newID(), Tenant: tenant, Event: EventReceived, At: s.clock(), Session: p.SessionID,
		Fields: receiptFields(p)}
	if p.expects != "" {
		e.Fields[receiptExpects] = p.expects
	}
	err = s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		return tx.AppendLedger(ctx, s.ledgerKeep, e)
	})
	return e.ID, err
}

func receiptFields(p ReceiptParams) map[string]string {
	f := map[string]string{"provider": p.Provider, "provider_event": p.ProviderEvent}
	if p.Agent != "" {
		f["agent"] = p.Agent
	}
	return f
}

// Receive records that a provider event arrived before any other work runs,
// then runs work. If work fails, Receive appends provider.event.failed with a
// reason (the error's code and safe message, never content) and returns the
// work's error. Callers that must not block a person's work (hooks) still
// exit 0: the failure is in the ledger.
//
// Errors: invalid (the receipt itself), or whatever work returns.
func (s *Service) Receive(ctx context.Context, tenant string, p ReceiptParams, work func(ctx context.Context) error) error {
	_, err := s.receive(ctx, tenant, p, work)
	return err
}

// receive is Receive, returning the receipt's id.
func (s *Service) receive(ctx context.Context, tenant string, p ReceiptParams, work func(ctx context.Context) error) (uuid.UUID, error) {
	id, err := s.AppendReceipt(ctx, tenant, p)
	if err != nil {
		return uuid.Nil, err
	}
	werr := work(ctx)
	if werr == nil {
		return id, nil
	}
	if lerr := s.appendFailure(ctx, tenant, p, id, string(ErrorCode(werr))+": "+ErrorMessage(werr)); lerr != nil {
		return id, &Error{Code: CodeInternal, Message: "work failed and its failure could not be recorded", Err: werr}
	}
	return id, werr
}

// appendFailure appends provider.event.failed for the receipt. It runs even
// when ctx has ended: the failure is the evidence the event left.
func (s *Service) appendFailure(ctx context.Context, tenant string, p ReceiptParams, receipt uuid.UUID, reason string) error {
	tenant = strings.TrimSpace(tenant)
	f := receiptFields(p)
	f["receipt"] = receipt.String()
	f["reason"] = reason
	e := LedgerEntry{ID: s.newID(), Tenant: tenant, Event: EventFailed, At: s.clock(), Session: p.SessionID, Fields: f}
	return s.store.Write(context.WithoutCancel(ctx), tenant, func(ctx context.Context, tx Tx) error {
		return tx.AppendLedger(ctx, s.ledgerKeep, e)
	})
}

// AppendEvent appends one ledger line with the given event name and payload.
// session, when set, is a session id. The payload holds at most
// MaxLedgerFields fields, each key no longer than an event name and each
// value at most MaxLedgerValueLen characters; keys that collide with the
// envelope (event, at, tenant, session) are refused.
//
// Errors: invalid, internal.
func (s *Service) AppendEvent(ctx context.Context, tenant, event, session string, fields map[string]string) (uuid.UUID, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	event = eventText.take(f, "event", event)
	session = sessionIDField(f, "session", session, false)
	checkPayload(f, "", fields, textRule.take)
	if err := fieldsErr(f); err != nil {
		return uuid.Nil, err
	}
	e := LedgerEntry{ID: s.newID(), Tenant: tenant, Event: event, At: s.clock(), Session: session, Fields: fields}
	err := s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		return tx.AppendLedger(ctx, s.ledgerKeep, e)
	})
	return e.ID, err
}

// checkPayload applies the rules of a ledger line's payload, named under
// prefix, to fields.
func checkPayload(f map[string]string, prefix string, fields map[string]string, text textCheck) {
	if len(fields) > MaxLedgerFields {
		f[prefix+"fields"] = "must hold at most " + strconv.Itoa(MaxLedgerFields) + " fields"
	}
	for k, v := range fields {
		// A bad key is named only as "fields": the key itself may not be
		// fit to print.
		if r := textReason(k); r != "" {
			f[prefix+"fields"] = "keys " + r
			continue
		}
		if k == "" || utf8.RuneCountInString(k) > maxReceiptField {
			f[prefix+"fields"] = "keys must be 1-" + strconv.Itoa(maxReceiptField) + " characters"
			continue
		}
		text(ledgerValueText, f, prefix+"fields."+k, v)
		if isEnvelopeKey(k) {
			f[prefix+"fields."+k] = "collides with the ledger envelope"
		}
	}
}

// MaxLedgerRead bounds the lines one Ledger read returns.
const MaxLedgerRead = 1000

// Ledger returns the tenant's ledger, oldest first, after the given line id
// (uuid.Nil for the start), at most limit lines (1 to MaxLedgerRead).
//
// Errors: invalid, internal.
func (s *Service) Ledger(ctx context.Context, tenant string, after uuid.UUID, limit int) ([]LedgerEntry, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	return s.readLedger(ctx, f, tenant, "", after, limit)
}
