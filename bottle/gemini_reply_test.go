package bottle

import "testing"

func TestGeminiReply(t *testing.T) {
	cases := []struct {
		name, line string
		want       string
		ok         bool
	}{
		{"model message, string content", `{"id":"m1","type":"gemini","content":"  Done.  "}`, "Done.", true},
		{"model message, parts, thought left out", `{"id":"m1","type":"gemini","content":[{"text":"thinking","thought":true},{"text":"Hello "},"world"]}`, "Hello world", true},
		{"model message without text", `{"id":"m1","type":"gemini","content":""}`, "", false},
		{"user message", `{"id":"u1","type":"user","content":"hi"}`, "", false},
		{"header", `{"sessionId":"s","projectHash":"h","startTime":"2026-01-01T00:00:00Z"}`, "", false},
		{"history replacement: the last model message", `{"$set":{"messages":[{"type":"gemini","content":"first"},{"type":"user","content":"q"},{"type":"gemini","content":"second"},{"type":"gemini","content":""}]}}`, "second", true},
		{"metadata update without messages", `{"$set":{"summary":"x"}}`, "", false},
		{"not an object", `["gemini"]`, "", false},
		{"torn line", `{"type":"gemini","content":"par`, "", false},
		{"empty", ``, "", false},
	}
	for _, tc := range cases {
		got, ok := GeminiReply([]byte(tc.line))
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: GeminiReply = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
