package httpapi

import (
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/batonhq/baton/continuity"
)

// invalidText reports whether any string reachable from v is not UTF-8.
func invalidText(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && invalidText(v.Elem())
	case reflect.String:
		return !utf8.ValidString(v.String())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && invalidText(v.Field(i)) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if invalidText(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if invalidText(it.Key()) || invalidText(it.Value()) {
				return true
			}
		}
	}
	return false
}

// FuzzDecodeBody: any body either decodes or is refused as invalid, and a
// body with text that is not UTF-8 never decodes into text that is: what
// is not UTF-8 reaches the service as such, or is refused here.
func FuzzDecodeBody(f *testing.F) {
	for _, seed := range []string{
		`{"provider":"claude-code","providerEvent":"PreCompact","agent":"claude-code","sessionId":"s1","sealed":{"sessionId":"s1","path":"/b","gap":0,"mode":"full"},"episode":{"objective":"o"}}`,
		"{\"agent\":\"a\xffb\",\"sessionId\":\"s\"}",
		`{"agent":"\ud800","sessionId":"\ud83d\ude00"}`,
		`{"episode":{"task":"t\u0000"}}`,
		`{"sealed":{"gap":"x"}} {}`,
		"{\"a\xff\":1}",
		`{"localFailure":"\\ufffd \\\ud800"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var p continuity.PreCompactParams
		err := decodeBody(body, &p)
		if err != nil {
			if code := continuity.ErrorCode(err); code != continuity.CodeInvalid || len(continuity.ErrorFields(err)) == 0 {
				t.Fatalf("refused as %v, want invalid naming a field", err)
			}
			return
		}
		if !utf8.Valid(body) && !invalidText(reflect.ValueOf(p)) {
			t.Fatalf("%q decoded into text that is all UTF-8: %+v", body, p)
		}
	})
}

// FuzzParseKeys: a key spec parses or is refused as invalid, never naming
// a key; every key of a parsed spec authenticates as its tenant.
func FuzzParseKeys(f *testing.F) {
	for _, seed := range []string{"k1=acme,k2=globex", "k=t\nk2=t\n# c", "=x", "k=", "k1=a,k1=b"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		a, err := ParseKeys(spec)
		if err != nil {
			if continuity.ErrorCode(err) != continuity.CodeInvalid {
				t.Fatalf("refused as %v", err)
			}
			return
		}
		for line := range strings.Lines(spec) {
			if strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			for entry := range strings.SplitSeq(line, ",") {
				key, tenant, _ := strings.Cut(strings.TrimSpace(entry), "=")
				key, tenant = strings.TrimSpace(key), strings.TrimSpace(tenant)
				if key == "" || strings.ContainsAny(key, " \t\r\n") {
					continue
				}
				r := httptest.NewRequest("GET", "/", nil)
				r.Header.Set("Authorization", "Bearer "+key)
				if got, err := a.Authenticate(r); err != nil || got != tenant {
					t.Fatalf("key %q = %q %v, want %q", key, got, err, tenant)
				}
			}
		}
	})
}
