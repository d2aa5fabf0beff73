package provenance_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/batonhq/baton/provenance"
)

func TestLimit(t *testing.T) {
	tests := []struct {
		raw     int
		want    int
		wantErr bool
	}{
		{-100, 0, true},
		{-1, 0, true},
		{0, provenance.DefaultLimit, false},
		{1, 1, false},
		{50, 50, false},
		{99, 99, false},
		{100, 100, false},
		{101, 0, true},
		{1 << 40, 0, true},
	}
	for _, tt := range tests {
		got, err := provenance.Limit(tt.raw)
		if tt.wantErr {
			var fe *provenance.FieldError
			if !errors.As(err, &fe) || fe.Field != "limit" {
				t.Errorf("Limit(%d) error = %v, want a FieldError on limit", tt.raw, err)
			}
			if err != nil && !strings.Contains(err.Error(), "limit") {
				t.Errorf("Limit(%d) error %q does not name the field", tt.raw, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Limit(%d) = %d, %v; want %d, nil", tt.raw, got, err, tt.want)
		}
	}
}

func TestBounds(t *testing.T) {
	if provenance.DefaultLimit != 50 || provenance.MaxLimit != 100 || provenance.Ceiling != 500 {
		t.Errorf("bounds = %d/%d/%d, want 50/100/500", provenance.DefaultLimit, provenance.MaxLimit, provenance.Ceiling)
	}
}

func TestCursorRoundTrip(t *testing.T) {
	ids := []uuid.UUID{
		uuid.Nil,
		uuid.Max,
		uuid.MustParse("01950000-0000-7000-8000-000000000001"),
		uuid.MustParse("0195d1b2-7c3e-7abc-9def-0123456789ab"),
		uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), // not v7: the cursor does not care
	}
	for _, want := range ids {
		s := provenance.EncodeCursor(want)
		got, err := provenance.DecodeCursor(s)
		if err != nil || got != want {
			t.Errorf("DecodeCursor(EncodeCursor(%v)) = %v, %v", want, got, err)
		}
		if strings.ContainsAny(s, "+/=") {
			t.Errorf("cursor %q is not unpadded base64url", s)
		}
		if want != uuid.Nil && strings.Contains(s, want.String()) {
			t.Errorf("cursor %q exposes the id", s)
		}
	}
}

func TestCursorStart(t *testing.T) {
	if s := provenance.EncodeCursor(uuid.Nil); s != "" {
		t.Errorf("EncodeCursor(Nil) = %q, want \"\"", s)
	}
	if id, err := provenance.DecodeCursor(""); err != nil || id != uuid.Nil {
		t.Errorf("DecodeCursor(\"\") = %v, %v; want Nil, nil", id, err)
	}
}

func TestDecodeCursorGarbage(t *testing.T) {
	good := provenance.EncodeCursor(uuid.MustParse("0195d1b2-7c3e-7abc-9def-0123456789ab"))
	raw := func(b ...byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	v1 := func(id []byte) string { return raw(append([]byte{1}, id...)...) }
	sixteen := make([]byte, 16)
	sixteen[0] = 0x42
	tests := []struct {
		name string
		s    string
	}{
		{"not base64", "!!!!"},
		{"a raw uuid", "0195d1b2-7c3e-7abc-9def-0123456789ab"},
		{"padded", good + "="},
		{"standard alphabet", "+" + good[1:]},
		{"one character short", good[:len(good)-1]},
		{"one character long", good + "A"},
		{"very long", strings.Repeat("A", 1<<16)},
		{"whitespace", " " + good[1:]},
		{"unknown version", raw(append([]byte{2}, sixteen...)...)},
		{"version zero", raw(append([]byte{0}, sixteen...)...)},
		{"too few id bytes", v1(sixteen[:15])},
		{"nil id spelled out", v1(make([]byte, 16))},
		{"non-canonical trailing bits", good[:len(good)-1] + string(flipLowBits(good[len(good)-1]))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := provenance.DecodeCursor(tt.s)
			var fe *provenance.FieldError
			if !errors.As(err, &fe) || fe.Field != "cursor" {
				t.Fatalf("DecodeCursor(%.40q) = %v, %v; want a FieldError on cursor", tt.s, id, err)
			}
			if id != uuid.Nil {
				t.Errorf("id = %v on error, want Nil", id)
			}
			if !strings.HasPrefix(err.Error(), "cursor: ") {
				t.Errorf("error %q does not name the field", err)
			}
		})
	}
}

// flipLowBits changes the last base64 character's unused low bits so the
// string still decodes leniently to the same bytes.
func flipLowBits(c byte) byte {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	i := strings.IndexByte(alphabet, c)
	return alphabet[i^1]
}

func TestPageJSON(t *testing.T) {
	created := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	p := provenance.Page{Items: []provenance.Item{{
		ID:           uuid.MustParse("0195d1b2-7c3e-7abc-9def-0123456789ab"),
		MemoryID:     uuid.MustParse("0195d1b2-7c3e-7abc-9def-000000000001"),
		EventKind:    "create",
		ActorKind:    "user_api",
		SessionRunID: uuid.MustParse("0195d1b2-7c3e-7abc-9def-000000000002"),
		CreatedAt:    created,
	}}}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"items":[{"id":"0195d1b2-7c3e-7abc-9def-0123456789ab","memoryId":"0195d1b2-7c3e-7abc-9def-000000000001",` +
		`"eventKind":"create","actorKind":"user_api","sessionRunId":"0195d1b2-7c3e-7abc-9def-000000000002",` +
		`"createdAt":"2026-03-14T09:00:00Z"}],"truncated":false}`
	if string(b) != want {
		t.Errorf("json = %s\nwant   %s", b, want)
	}
	p.NextCursor = "abc"
	p.Truncated = true
	b, _ = json.Marshal(p)
	if !strings.Contains(string(b), `"nextCursor":"abc","truncated":true`) {
		t.Errorf("json = %s, want nextCursor and truncated", b)
	}
}

func FuzzDecodeCursor(f *testing.F) {
	f.Add("")
	f.Add(provenance.EncodeCursor(uuid.MustParse("0195d1b2-7c3e-7abc-9def-0123456789ab")))
	f.Add(provenance.EncodeCursor(uuid.Max))
	f.Add("AQ")
	f.Add("!!!!")
	f.Add(strings.Repeat("_", 23))
	f.Fuzz(func(t *testing.T, s string) {
		id, err := provenance.DecodeCursor(s)
		if err != nil {
			var fe *provenance.FieldError
			if !errors.As(err, &fe) || fe.Field != "cursor" {
				t.Fatalf("DecodeCursor(%q) error %v is not a FieldError on cursor", s, err)
			}
			if id != uuid.Nil {
				t.Fatalf("DecodeCursor(%q) returned %v with an error", s, id)
			}
			return
		}
		// Every accepted cursor has exactly one spelling.
		if again := provenance.EncodeCursor(id); again != s {
			t.Fatalf("DecodeCursor(%q) = %v, which encodes as %q", s, id, again)
		}
	})
}
