package bottle

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// fill sets every exported field reachable from v to a value that is not
// its zero value, distinct per field (seed counts the fields filled):
// strings carry a NUL and invalid UTF-8, times a zone, slices and maps two
// elements, pointers a filled value.
func fill(t testing.TB, v reflect.Value, seed *int) {
	t.Helper()
	*seed++
	n := *seed
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 30, 1, 2, 3, n, time.FixedZone("", 3600+60*n))))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i), seed)
			}
		}
	case reflect.String:
		v.SetString("s\x00\xff" + string(rune('a'+n%26)) + string(make([]byte, n%3)))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(-n * 1000003))
	case reflect.Uint8:
		v.SetUint(uint64(200 + n%50))
	case reflect.Uint64:
		v.SetUint(uint64(n) << 60)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(t, s.Index(i), seed)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(t, k, seed)
			fill(t, e, seed)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(t, p.Elem(), seed)
		v.Set(p)
	default:
		t.Fatalf("fill: no value for a %s: teach fill and the codec this type", v.Type())
	}
}

// filledState is a state with every exported field filled, and its
// encoding.
func filledState(tb testing.TB) (state, []byte) {
	tb.Helper()
	var st state
	seed := 0
	fill(tb, reflect.ValueOf(&st).Elem(), &seed)
	data, err := encodeState(nil, &st)
	if err != nil {
		tb.Fatal(err)
	}
	return st, data
}

// TestStateCodecRoundTrip: every exported field of the cache survives its
// encoding exactly, byte for byte in strings and to the nanosecond and zone
// in times. A field added to the state's types and not to the codec is lost
// here, and fails.
func TestStateCodecRoundTrip(t *testing.T) {
	st, data := filledState(t)
	got, err := decodeState(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, &st) {
		t.Errorf("round trip changed the state\n got %+v\nwant %+v", got, &st)
	}
	// Nil and empty: a decoded empty slice or map is nil, a nil pointer stays
	// nil and a pointer to a zero value stays a pointer.
	for _, tc := range []struct {
		name string
		in   state
		want state
	}{
		{"zero", state{}, state{}},
		{"empty containers", state{Pages: []pageMeta{}, Transcript: Transcript{Entries: []Entry{}, Boundaries: []int64{}}},
			state{}},
		{"empty past and gemini", state{Past: &past{Open: map[string]bool{}}, Transcript: Transcript{Gemini: &GeminiState{Messages: map[string]GeminiMessage{}}}},
			state{Past: &past{}, Transcript: Transcript{Gemini: &GeminiState{}}}},
	} {
		data, err := encodeState(nil, &tc.in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeState(data)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, *got, tc.want)
		}
	}
}

// TestStateCodecRefusesDamage: a cache cut short at any byte, or with a byte
// more, does not decode (readState then reparses the transcript); neither
// does a count larger than what follows it.
func TestStateCodecRefusesDamage(t *testing.T) {
	_, data := filledState(t)
	for n := range len(data) {
		if _, err := decodeState(data[:n]); err == nil {
			t.Fatalf("decoded a cache cut to %d of its %d bytes", n, len(data))
		}
	}
	if _, err := decodeState(append(bytes.Clone(data), 0)); err == nil {
		t.Error("decoded a cache with a trailing byte")
	}
	for _, bad := range [][]byte{
		{},
		{0x80},                   // an unfinished varint
		{0, 0xff, 0xff, 0xff, 7}, // the transcript path's length beyond the data
	} {
		if _, err := decodeState(bad); err == nil {
			t.Errorf("decoded % x", bad)
		}
	}
}

// TestReadStateAfterWriteState: the cache in a lock file reads back as it
// was written; a flipped byte fails its sum and reads as no cache.
func TestReadStateAfterWriteState(t *testing.T) {
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "s.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st := state{Version: stateVersion, Cursor: Cursor{Transcript: "/t.jsonl", Offset: 42, PrefixLen: 42}, Pages: []pageMeta{{Lines: 3}, {Lines: 4}}, Frozen: 1, Past: &past{}}
	if err := writeState(f, &st); err != nil {
		t.Fatal(err)
	}
	if got := readState(f); !reflect.DeepEqual(got, &st) {
		t.Fatalf("read %+v, want %+v", got, &st)
	}
	if _, err := f.WriteAt([]byte{0xff}, sha256.Size+3); err != nil {
		t.Fatal(err)
	}
	if got := readState(f); got != nil {
		t.Errorf("a damaged cache read as %+v", got)
	}
}

// FuzzDecodeState: no input makes the decoder panic, and whatever decodes
// encodes to bytes that decode to the same state.
func FuzzDecodeState(f *testing.F) {
	_, full := filledState(f)
	empty, _ := encodeState(nil, &state{})
	f.Add(full)
	f.Add(empty)
	f.Add([]byte{0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := decodeState(data)
		if err != nil {
			return
		}
		again, err := encodeState(nil, st)
		if err != nil {
			return // a time the decoder accepted and MarshalBinary refuses
		}
		st2, err := decodeState(again)
		if err != nil {
			t.Fatalf("re-encoded cache does not decode: %v", err)
		}
		if !reflect.DeepEqual(st, st2) {
			t.Fatalf("re-encoding changed the state\n%+v\n%+v", st, st2)
		}
	})
}
