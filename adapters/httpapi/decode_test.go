package httpapi

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// TestDecodeBodyMemberNames: a body's member names are matched exactly and
// once per object, at every level (an embedded struct's, a nested
// object's, an array's objects'), while a map's keys are data of any case;
// a repeated name, or one in another case than its field's, is invalid,
// naming the member, and broken JSON is still refused as such.
func TestDecodeBodyMemberNames(t *testing.T) {
	id := uuid.MustParse("0b9ae4a1-3f4c-4d53-9a39-6d0c2b5e7a10")
	open := func() any { return &continuity.OpenParams{} }
	arm := func() any { return &ArmRequest{} }
	compact := func() any { return &continuity.PreCompactParams{} }
	const twice, broken = "must appear once", "must be valid JSON"
	cases := []struct {
		name   string
		into   func() any
		body   string
		field  string // the member named, or "" when the body decodes
		reason string // why it is named
		want   any    // what it decodes to, when it does
	}{
		{"exact names", open,
			`{"agent":"a","sessionId":"s","source":"startup"}`, "", "",
			&continuity.OpenParams{Agent: "a", SessionID: "s", Source: continuity.SourceStartup}},
		{"a member in another case", open,
			`{"agent":"a","SessionId":"s","source":"startup"}`, "SessionId", notAField, nil},
		{"a member in capitals", open,
			`{"AGENT":"a","sessionId":"s","source":"startup"}`, "AGENT", notAField, nil},
		{"a member twice", open,
			`{"agent":"a","sessionId":"s","source":"startup","source":"resume"}`, "source", twice, nil},
		{"a member twice, once in another case", open,
			`{"agent":"first","Agent":"second","sessionId":"s","source":"startup"}`, "Agent", notAField, nil},
		{"a map's keys in any case", open,
			`{"agent":"a","sessionId":"s","source":"startup","selector":{"kind":"all","Kind":"note","KIND":"x"}}`, "", "",
			&continuity.OpenParams{Agent: "a", SessionID: "s", Source: continuity.SourceStartup,
				Selector: continuity.Selector{"kind": "all", "Kind": "note", "KIND": "x"}}},
		{"a map's key twice", open,
			`{"agent":"a","sessionId":"s","source":"startup","selector":{"kind":"all","kind":"note"}}`, "kind", twice, nil},
		{"an array's objects, each with its own names", open,
			`{"agent":"a","sessionId":"s","source":"startup","briefedMemories":[{"id":"` + id.String() + `","topic":"t","status":"open"},{"id":"` + id.String() + `","topic":"u","status":"open"}]}`, "", "",
			&continuity.OpenParams{Agent: "a", SessionID: "s", Source: continuity.SourceStartup,
				BriefedMemories: []continuity.BriefedMemory{{ID: id, Topic: "t", Status: "open"}, {ID: id, Topic: "u", Status: "open"}}}},
		{"a member in another case in an array's second object", open,
			`{"agent":"a","sessionId":"s","source":"startup","briefedMemories":[{"id":"` + id.String() + `"},{"Id":"` + id.String() + `"}]}`, "Id", notAField, nil},
		{"a member twice in an array's object", open,
			`{"agent":"a","sessionId":"s","source":"startup","briefedMemories":[{"topic":"t","topic":"u"}]}`, "topic", twice, nil},
		{"an embedded struct's members", arm,
			`{"agent":"a","sessionId":"s","path":"/b/s.md","gap":1,"mode":"full"}`, "", "",
			&ArmRequest{Agent: "a", Marker: bottle.Marker{SessionID: "s", Path: "/b/s.md", Gap: 1, Mode: bottle.ModeFull}}},
		{"an embedded struct's member in another case", arm,
			`{"agent":"a","sessionId":"s","Path":"/b/s.md","mode":"full"}`, "Path", notAField, nil},
		{"one name in two objects", compact,
			`{"provider":"p","providerEvent":"PreCompact","agent":"a","sessionId":"s","sealed":{"sessionId":"s","path":"/b","gap":0,"mode":"full"}}`, "", "",
			&continuity.PreCompactParams{EventParams: continuity.EventParams{Provider: "p", ProviderEvent: "PreCompact", Agent: "a", SessionID: "s"},
				Sealed: &bottle.Marker{SessionID: "s", Path: "/b", Mode: bottle.ModeFull}}},
		{"a nested member in another case", compact,
			`{"agent":"a","sessionId":"s","sealed":{"sessionId":"s","Gap":2}}`, "Gap", notAField, nil},
		{"a nested member twice", compact,
			`{"agent":"a","sessionId":"s","sealed":{"gap":1,"gap":2}}`, "gap", twice, nil},
		{"a member twice in the episode", compact,
			`{"agent":"a","sessionId":"s","episode":{"objective":"o","objective":"p"}}`, "objective", twice, nil},
		{"an unknown member", open,
			`{"agent":"a","sessionId":"s","source":"startup","tenant":"t"}`, "tenant", notAField, nil},
		{"broken JSON after a member twice", open,
			`{"agent":"a","agent":"b",`, "body", broken, nil},
		{"broken JSON after a member in another case", open,
			`{"Agent":"a"]`, "body", broken, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.into()
			err := decodeBody([]byte(tc.body), got)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("decodeBody = %v, want it decoded", err)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("decoded %+v, want %+v", got, tc.want)
				}
				return
			}
			if continuity.ErrorCode(err) != continuity.CodeInvalid || continuity.ErrorFields(err)[tc.field] != tc.reason {
				t.Errorf("decodeBody = %v (fields %v), want invalid naming %q: %s", err, continuity.ErrorFields(err), tc.field, tc.reason)
			}
		})
	}
}

// TestDecodeBodyWorkIsLinear: what decoding a body allocates grows with the
// body, not with its depth times its strings: a body of MaxBodyBytes nested
// thousands deep around strings or member names that are not UTF-8 is
// refused as invalid having allocated a bounded multiple of its size (the
// walk that finds such strings once copied the whole path for each of
// them, gigabytes for one request). Bytes allocated are counted, not time.
func TestDecodeBodyWorkIsLinear(t *testing.T) {
	// fill repeats item between an opening and a closing to MaxBodyBytes.
	fill := func(open, item, close string) []byte {
		n := (MaxBodyBytes - len(open) - len(close)) / len(item)
		return []byte(open + strings.Repeat(item, n) + close)
	}
	nest := func(member string, depth int, item string) []byte {
		return fill(`{"`+member+`":`+strings.Repeat("[", depth), item, `0`+strings.Repeat("]", depth)+`}`)
	}
	const perByte = 1024 // 64 MiB: six times what a deep body takes, under a tenth of what depth × strings took
	cases := []struct {
		name string
		into func() any
		body []byte
	}{
		{"strings not UTF-8 under arrays 9000 deep", func() any { return &continuity.CloseParams{} }, nest("agent", 9000, "\"\xff\",")},
		{"strings not UTF-8 under arrays 20000 deep", func() any { return &continuity.CloseParams{} }, nest("agent", 20000, "\"\xff\",")},
		{"lone surrogates under arrays 9000 deep", func() any { return &continuity.CloseParams{} }, nest("agent", 9000, `"\ud800",`)},
		{"member names not UTF-8 under arrays 9000 deep", func() any { return &continuity.OpenParams{} }, nest("selector", 9000, "{\"\xff\":0},")},
		{"member names not UTF-8 under a map 9000 deep", func() any { return &continuity.OpenParams{} },
			fill(`{"selector":{"k":`+strings.Repeat("[", 9000), "{\"\xff\":0},", `0`+strings.Repeat("]", 9000)+`}}`)},
		{"strings not UTF-8 in a flat array", func() any { return &continuity.CloseParams{} }, fill(`{"agent":[`, "\"\xff\",", `0]}`)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := decodeBody(tc.body, tc.into())
			runtime.ReadMemStats(&after)
			if continuity.ErrorCode(err) != continuity.CodeInvalid {
				t.Errorf("decodeBody = %v, want invalid", err)
			}
			if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(perByte*len(tc.body)); got > limit {
				t.Errorf("decoding a body of %d bytes allocated %d bytes, over %d", len(tc.body), got, limit)
			}
		})
	}
}

// TestDecodeBodyTypeErrorsNameTheMember: a value of another JSON type, or
// a number its integer cannot hold, is refused naming its member as the
// wire spells it, at every level: a member an embedded struct promotes
// (the event of every episode call, a marker's) is named alone, never
// with the Go name of the struct that holds it.
func TestDecodeBodyTypeErrorsNameTheMember(t *testing.T) {
	stop := func() any { return &continuity.StopParams{} }
	arm := func() any { return &ArmRequest{} }
	compact := func() any { return &continuity.PreCompactParams{} }
	open := func() any { return &continuity.OpenParams{} }
	cases := []struct {
		name  string
		into  func() any
		body  string
		field string
		why   string
	}{
		{"a member of the struct itself", open, `{"agent":5}`, "agent", "must be a JSON string"},
		{"a member of the embedded event", stop, `{"provider":5,"providerEvent":"Stop","agent":"a","sessionId":"s"}`, "provider", "must be a JSON string"},
		{"a list for the embedded event's text", stop, `{"provider":"p","sessionId":["s"]}`, "sessionId", "must be a JSON string"},
		{"a member of the episode's own", stop, `{"provider":"p","lastMessage":true}`, "lastMessage", "must be a JSON string"},
		{"an embedded marker's text", arm, `{"agent":"a","sessionId":7}`, "sessionId", "must be a JSON string"},
		{"an embedded marker's integer out of range", arm, `{"agent":"a","gap":1e400}`, "gap", "must be a JSON integer"},
		{"an embedded marker's integer too large", arm, `{"agent":"a","gap":99999999999999999999}`, "gap", "must be a JSON integer"},
		{"an embedded marker's fraction", arm, `{"agent":"a","gap":0.5}`, "gap", "must be a JSON integer"},
		{"a nested object's integer", compact, `{"provider":"p","sealed":{"gap":"two"}}`, "sealed.gap", "must be a JSON integer"},
		{"a member of an array's object", open, `{"briefedMemories":[{"topic":5}]}`, "briefedMemories.topic", "must be a JSON string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := decodeBody([]byte(tc.body), tc.into())
			if continuity.ErrorCode(err) != continuity.CodeInvalid || continuity.ErrorFields(err)[tc.field] != tc.why || len(continuity.ErrorFields(err)) != 1 {
				t.Errorf("decodeBody = %v (fields %v), want invalid naming %q: %s", err, continuity.ErrorFields(err), tc.field, tc.why)
			}
		})
	}
}
