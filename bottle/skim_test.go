package bottle

import (
	"encoding/json"
	"testing"
)

func TestSkim(t *testing.T) {
	cases := []struct {
		in     string
		ok     bool
		fields string // key=value pairs the walk saw, in order
	}{
		{`{}`, true, ""},
		{` { "a" : 1 , "b":"x" } `, true, `"a"=1;"b"="x";`},
		{`{"a":"q\"uote","b":"back\\"}`, true, `"a"="q\"uote";"b"="back\\";`},
		{`{"a":{"n":[1,{"x":"]}"}]},"b":true}`, true, `"a"={"n":[1,{"x":"]}"}]};"b"=true;`},
		{`{"a":"unterminated}`, false, ""},
		{`{"a":1,}`, false, `"a"=1;`},
		{`{"a" 1}`, false, ""},
		{`{"a":}`, false, ""},
		{`{"a":1} trailing`, false, `"a"=1;`},
		{`[1,2]`, false, ""},
		{`{"a":[1,2}`, false, `"a"=[1,2};`}, // bracket kinds are not matched; the walk still fails
		{``, false, ""},
	}
	for _, c := range cases {
		got := ""
		ok := eachField([]byte(c.in), func(k, v []byte) { got += string(k) + "=" + string(v) + ";" })
		if ok != c.ok || got != c.fields {
			t.Errorf("eachField(%s) = %v %q, want %v %q", c.in, ok, got, c.ok, c.fields)
		}
	}
}

func FuzzSkim(f *testing.F) {
	addLines(f, "testdata/claude-2.1.328.jsonl")
	f.Fuzz(func(t *testing.T, s string) {
		// Never a panic, every value reported lies inside the input, and
		// every object encoding/json accepts the skimmer walks whole. (Keys
		// are compared raw, so an invalid key simply matches nothing.)
		ok := eachField([]byte(s), func(k, v []byte) {
			if len(k) < 2 || len(v) == 0 || len(k)+len(v) > len(s) {
				t.Fatalf("bad member %q=%q in %q", k, v, s)
			}
		})
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(s), &obj) == nil && obj != nil && !ok {
			t.Fatalf("skimmer rejected a valid object: %q", s)
		}
	})
}
