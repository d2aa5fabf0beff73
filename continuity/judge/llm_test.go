package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/provenance"
	"github.com/google/uuid"
)

const testKey = "sk-test-0123456789-secret"

// fake is a loopback Messages endpoint: it records each request and answers
// with what answer returns.
type fake struct {
	srv    *httptest.Server
	calls  atomic.Int64
	last   atomic.Pointer[http.Request]
	body   atomic.Pointer[[]byte]
	answer func(w http.ResponseWriter, r *http.Request)
}

func newFake(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) *fake {
	t.Helper()
	f := &fake{answer: answer}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.calls.Add(1)
		b, _ := io.ReadAll(r.Body)
		f.last.Store(r)
		f.body.Store(&b)
		f.answer(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// messages answers 200 with a Messages envelope whose text is text and whose
// usage is in/out tokens.
func messages(text string, in, out int64) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("content-type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "stop_reason": "end_turn",
			"content": []map[string]string{{"type": "text", "text": text}},
			"usage":   map[string]int64{"input_tokens": in, "output_tokens": out},
		})
	}
}

func verdictText(ids ...uuid.UUID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	b, _ := json.Marshal(map[string][]string{"completed": s})
	return string(b)
}

func config(url string) LLMConfig {
	return LLMConfig{URL: url, APIKey: testKey, Model: "claude-test", PriceInPerMTok: 3_000_000, PriceOutPerMTok: 15_000_000, Timeout: 5 * time.Second}
}

func newJudge(t *testing.T, cfg LLMConfig) *LLM {
	t.Helper()
	l, err := NewLLM(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func llmCase(cs ...continuity.Memory) continuity.JudgeCase {
	return continuity.JudgeCase{Tenant: "t1", Excerpt: "Done: lease. Next the docs.", Commitments: cs,
		Events: []provenance.Item{{ID: uuid.New(), MemoryID: lease.ID, EventKind: "create"}}}
}

// wantCode asserts err's code and that it never carries the key.
func wantCode(t *testing.T, err error, code continuity.Code) {
	t.Helper()
	if continuity.ErrorCode(err) != code {
		t.Fatalf("error %v, want code %s", err, code)
	}
	if strings.Contains(err.Error(), testKey) || strings.Contains(fmt.Sprintf("%+v", err), testKey) {
		t.Fatalf("error %v echoes the key", err)
	}
}

func TestLLMGoodAnswer(t *testing.T) {
	stranger := uuid.New()
	f := newFake(t, messages(verdictText(docs.ID, stranger, lease.ID, docs.ID), 1000, 100))
	l := newJudge(t, config(f.srv.URL))
	v, err := l.Judge(context.Background(), llmCase(lease, docs, ship))
	if err != nil {
		t.Fatal(err)
	}
	if want := ids(lease, docs); !slices.Equal(v.Completed, want) {
		t.Fatalf("verdict %v, want %v: the case's order, repeats once, the stranger dropped", v.Completed, want)
	}
	// 1000 in at $3/MTok and 100 out at $15/MTok: 3000 + 1500 micro-USD.
	want := continuity.JudgeUsage{InputTokens: 1000, OutputTokens: 100, CostMicroUSD: 4500}
	if v.Usage != want || l.Spent("t1") != want || l.Spent("t2") != (continuity.JudgeUsage{}) {
		t.Fatalf("usage %+v, spent t1 %+v t2 %+v; want %+v for t1 only", v.Usage, l.Spent("t1"), l.Spent("t2"), want)
	}
	r := f.last.Load()
	if r.Method != http.MethodPost || r.Header.Get("x-api-key") != testKey || r.Header.Get("anthropic-version") != DefaultVersion ||
		r.Header.Get("content-type") != "application/json" {
		t.Fatalf("request %s headers %v", r.Method, r.Header)
	}
	var body struct {
		Model       string  `json:"model"`
		MaxTokens   int     `json:"max_tokens"`
		Temperature float64 `json:"temperature"`
		System      string  `json:"system"`
		Messages    []struct {
			Role, Content string
		} `json:"messages"`
	}
	if err := json.Unmarshal(*f.body.Load(), &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "claude-test" || body.MaxTokens != DefaultMaxTokens || body.System != systemPrompt || len(body.Messages) != 1 || body.Messages[0].Role != "user" {
		t.Fatalf("body %+v", body)
	}
	u := body.Messages[0].Content
	for _, s := range []string{"```json\n", "Done: lease. Next the docs.", lease.ID.String(), ship.ID.String(), `"eventKind":"create"`} {
		if !strings.Contains(u, s) {
			t.Fatalf("user message lacks %q:\n%s", s, u)
		}
	}
}

func TestLLMNoCommitmentsIsNotSent(t *testing.T) {
	f := newFake(t, messages(verdictText(), 1, 1))
	v, err := newJudge(t, config(f.srv.URL)).Judge(context.Background(), llmCase())
	if err != nil || len(v.Completed) != 0 || v.Usage != (continuity.JudgeUsage{}) || f.calls.Load() != 0 {
		t.Fatalf("verdict %+v err %v after %d calls; want nothing and no call", v, err, f.calls.Load())
	}
}

func TestLLMRefusesAnInvalidCase(t *testing.T) {
	f := newFake(t, messages(verdictText(), 1, 1))
	l := newJudge(t, config(f.srv.URL))
	for name, c := range map[string]continuity.JudgeCase{
		"no tenant":         {Commitments: briefed},
		"excerpt not UTF-8": {Tenant: "t1", Excerpt: "\xff", Commitments: briefed},
	} {
		_, err := l.Judge(context.Background(), c)
		wantCode(t, err, continuity.CodeInvalid)
		if f.calls.Load() != 0 {
			t.Fatalf("%s: the endpoint was called", name)
		}
	}
}

func TestLLMAnswers(t *testing.T) {
	hundred := make([]uuid.UUID, MaxCompleted)
	for i := range hundred {
		hundred[i] = uuid.New()
	}
	for _, tc := range []struct {
		name   string
		answer func(http.ResponseWriter, *http.Request)
		want   []uuid.UUID     // when no error
		code   continuity.Code // "" when none
		cause  error
		usage  continuity.JudgeUsage // recorded; worst means the reservation
		worst  bool
	}{
		{name: "empty verdict", answer: messages(`{"completed": []}`, 10, 2), usage: continuity.JudgeUsage{InputTokens: 10, OutputTokens: 2, CostMicroUSD: 60}},
		{name: "white space around the object", answer: messages("\n "+verdictText(lease.ID)+" \n", 10, 2), want: ids(lease), usage: continuity.JudgeUsage{InputTokens: 10, OutputTokens: 2, CostMicroUSD: 60}},
		{name: "text split over two blocks", answer: func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprintf(w, `{"content":[{"type":"text","text":"{\"completed\":"},{"type":"tool_use","text":"x"},{"type":"text","text":"[\"%s\"]}"}],"usage":{"input_tokens":1,"output_tokens":1}}`, docs.ID)
		}, want: ids(docs), usage: continuity.JudgeUsage{InputTokens: 1, OutputTokens: 1, CostMicroUSD: 18}},
		{name: "cache tokens count as input", answer: func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, `{"content":[{"type":"text","text":"{\"completed\":[]}"}],"usage":{"input_tokens":1,"cache_creation_input_tokens":2,"cache_read_input_tokens":3,"output_tokens":0}}`)
		}, usage: continuity.JudgeUsage{InputTokens: 6, CostMicroUSD: 18}},
		{name: "exactly the most ids", answer: messages(verdictText(hundred...), 1, 1), usage: continuity.JudgeUsage{InputTokens: 1, OutputTokens: 1, CostMicroUSD: 18}},
		{name: "one id too many", answer: messages(verdictText(append(hundred, lease.ID)...), 1, 1), code: continuity.CodeInternal, cause: ErrAnswer, usage: continuity.JudgeUsage{InputTokens: 1, OutputTokens: 1, CostMicroUSD: 18}},
		{name: "prose around the object", answer: messages("Sure! "+verdictText(lease.ID), 1, 1), code: continuity.CodeInternal, cause: ErrAnswer, usage: continuity.JudgeUsage{InputTokens: 1, OutputTokens: 1, CostMicroUSD: 18}},
		{name: "a code fence", answer: messages("```json\n"+verdictText(lease.ID)+"\n```", 1, 1), code: continuity.CodeInternal, cause: ErrAnswer, usage: continuity.JudgeUsage{InputTokens: 1, OutputTokens: 1, CostMicroUSD: 18}},
		{name: "two objects", answer: messages(verdictText(lease.ID)+verdictText(docs.ID), 1, 1), code: continuity.CodeInternal, cause: ErrAnswer, usage: continuity.JudgeUsage{InputTokens: 1, OutputTokens: 1, CostMicroUSD: 18}},
		{name: "truncated JSON", answer: messages(`{"completed": ["`, 1, 1), code: continuity.CodeInternal, cause: ErrAnswer, usage: continuity.JudgeUsage{InputTokens: 1, OutputTokens: 1, CostMicroUSD: 18}},
		{name: "an unknown key", answer: messages(`{"completed": [], "reason": "x"}`, 1, 1), code: continuity.CodeInternal, cause: ErrAnswer, usage: continuity.JudgeUsage{InputTokens: 1, OutputTokens: 1, CostMicroUSD: 18}},
		{name: "the key in another case", answer: messages(`{"Completed": []}`, 1, 1), code: continuity.CodeInternal, cause: ErrAnswer, usage: continuity.JudgeUsage{InputTokens: 1, OutputTokens: 1, CostMicroUSD: 18}},
		{name: "no key", answer: messages(`{}`, 1, 1), code: continuity.CodeInternal, cause: ErrAnswer, usage: continuity.JudgeUsage{InputTokens: 1, OutputTokens: 1, CostMicroUSD: 18}},
		{name: "null list", answer: messages(`{"completed": null}`, 1, 1), code: continuity.CodeInternal, cause: ErrAnswer, usage: continuity.JudgeUsage{InputTokens: 1, OutputTokens: 1, CostMicroUSD: 18}},
		{name: "an object, not a list", answer: messages(`{"completed": {}}`, 1, 1), code: continuity.CodeInternal, cause: ErrAnswer, usage: continuity.JudgeUsage{InputTokens: 1, OutputTokens: 1, CostMicroUSD: 18}},
		{name: "a number for an id", answer: messages(`{"completed": [1]}`, 1, 1), code: continuity.CodeInternal, cause: ErrAnswer, usage: continuity.JudgeUsage{InputTokens: 1, OutputTokens: 1, CostMicroUSD: 18}},
		{name: "an id prefix", answer: messages(`{"completed": ["0190f1c2"]}`, 1, 1), code: continuity.CodeInternal, cause: ErrAnswer, usage: continuity.JudgeUsage{InputTokens: 1, OutputTokens: 1, CostMicroUSD: 18}},
		{name: "a braced id", answer: messages(`{"completed": ["{`+lease.ID.String()+`}"]}`, 1, 1), code: continuity.CodeInternal, cause: ErrAnswer, usage: continuity.JudgeUsage{InputTokens: 1, OutputTokens: 1, CostMicroUSD: 18}},
		{name: "the nil id", answer: messages(`{"completed": ["`+uuid.Nil.String()+`"]}`, 1, 1), code: continuity.CodeInternal, cause: ErrAnswer, usage: continuity.JudgeUsage{InputTokens: 1, OutputTokens: 1, CostMicroUSD: 18}},
		{name: "the envelope is not JSON", answer: func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "<html>") }, code: continuity.CodeInternal, cause: ErrAnswer, worst: true},
		{name: "no usage is charged the reservation", answer: func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, `{"content":[{"type":"text","text":"{\"completed\":[]}"}]}`)
		}, worst: true},
		{name: "negative usage", answer: messages(`{"completed": []}`, -1, 1), code: continuity.CodeInternal, cause: ErrAnswer, worst: true},
		{name: "usage over the bound", answer: messages(`{"completed": []}`, MaxUsageTokens+1, 1), code: continuity.CodeInternal, cause: ErrAnswer, worst: true},
		{name: "an answer of exactly the most bytes", answer: func(w http.ResponseWriter, r *http.Request) {
			body := `{"content":[{"type":"text","text":"{\"completed\":[]}"}],"usage":{"input_tokens":1,"output_tokens":1}}`
			fmt.Fprint(w, body+strings.Repeat(" ", MaxAnswerBytes-len(body)))
		}, usage: continuity.JudgeUsage{InputTokens: 1, OutputTokens: 1, CostMicroUSD: 18}},
		{name: "an answer one byte over", answer: func(w http.ResponseWriter, r *http.Request) {
			body := `{"content":[{"type":"text","text":"{\"completed\":[]}"}],"usage":{"input_tokens":1,"output_tokens":1}}`
			fmt.Fprint(w, body+strings.Repeat(" ", MaxAnswerBytes+1-len(body)))
		}, code: continuity.CodeTooLarge, worst: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.answer)
			l := newJudge(t, config(f.srv.URL))
			c := llmCase(lease, docs, ship)
			v, err := l.Judge(context.Background(), c)
			usage := tc.usage
			if tc.worst {
				body, _, _ := l.request(c)
				usage = l.priced(int64(len(body)), DefaultMaxTokens)
			}
			if tc.code == "" {
				if err != nil || !slices.Equal(v.Completed, tc.want) {
					t.Fatalf("verdict %v err %v, want %v", v.Completed, err, tc.want)
				}
			} else {
				wantCode(t, err, tc.code)
				if tc.cause != nil && !errors.Is(err, tc.cause) {
					t.Fatalf("error %v does not wrap %v", err, tc.cause)
				}
				if len(v.Completed) != 0 {
					t.Fatalf("a failed verdict names %v", v.Completed)
				}
			}
			if v.Usage != usage || l.Spent("t1") != usage {
				t.Fatalf("usage %+v spent %+v, want %+v", v.Usage, l.Spent("t1"), usage)
			}
		})
	}
}

func TestLLMStatus(t *testing.T) {
	for _, status := range []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusTooManyRequests, http.StatusInternalServerError, 529, http.StatusTemporaryRedirect} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
				if status == http.StatusTemporaryRedirect {
					http.Redirect(w, r, "/elsewhere", status)
					return
				}
				w.WriteHeader(status)
				fmt.Fprintf(w, `{"type":"error","error":{"message":"key %s refused"}}`, r.Header.Get("x-api-key"))
			})
			l := newJudge(t, config(f.srv.URL))
			v, err := l.Judge(context.Background(), llmCase(lease))
			wantCode(t, err, continuity.CodeInternal)
			var se *StatusError
			if !errors.As(err, &se) || se.Status != status || !strings.Contains(err.Error(), fmt.Sprint(status)) || se.Error() != "judge: the endpoint answered HTTP "+fmt.Sprint(status) {
				t.Fatalf("error %v, want a StatusError of %d", err, status)
			}
			if f.calls.Load() != 1 || v.Usage != (continuity.JudgeUsage{}) || l.Spent("t1") != (continuity.JudgeUsage{}) {
				t.Fatalf("%d calls (a redirect is not followed), usage %+v spent %+v; want 1 call and nothing charged", f.calls.Load(), v.Usage, l.Spent("t1"))
			}
		})
	}
}

func TestLLMSlow(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	wait := func(r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
	for _, tc := range []struct {
		name   string
		answer func(http.ResponseWriter, *http.Request)
	}{
		{"no headers", func(w http.ResponseWriter, r *http.Request) { wait(r) }},
		{"headers, then a stalled body", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK)
			fmt.Fprint(w, `{"content":[`)
			w.(http.Flusher).Flush()
			wait(r)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.answer)
			cfg := config(f.srv.URL)
			cfg.Timeout = 50 * time.Millisecond
			l := newJudge(t, cfg)
			_, err := l.Judge(context.Background(), llmCase(lease))
			wantCode(t, err, continuity.CodeInternal)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("error %v, want a deadline", err)
			}
			if strings.Contains(err.Error(), f.srv.URL) {
				t.Fatalf("error %v names the endpoint", err)
			}
		})
	}
	t.Run("the caller's deadline", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request) { wait(r) })
		l := newJudge(t, config(f.srv.URL))
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := l.Judge(ctx, llmCase(lease))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error %v, want the caller's deadline", err)
		}
	})
}

func TestLLMUnreachable(t *testing.T) {
	f := newFake(t, messages(verdictText(), 1, 1))
	url := f.srv.URL
	f.srv.Close()
	l := newJudge(t, config(url))
	_, err := l.Judge(context.Background(), llmCase(lease))
	wantCode(t, err, continuity.CodeInternal)
	if l.Spent("t1") != (continuity.JudgeUsage{}) {
		t.Fatalf("spent %+v on a call that never answered", l.Spent("t1"))
	}
}

func TestLLMCap(t *testing.T) {
	now := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	const in, out = 1000, 100
	f := newFake(t, messages(verdictText(), in, out))
	c := llmCase(lease)
	probe := newJudge(t, config(f.srv.URL))
	body, _, _ := probe.request(c)
	worst := probe.priced(int64(len(body)), DefaultMaxTokens)
	spent := probe.priced(in, out)
	for _, tc := range []struct {
		name string
		cap  Cap
		ok   bool // whether the second call is made
	}{
		{"no cap", Cap{}, true},
		{"tokens: the worst case exactly fits", Cap{Tokens: in + out + worst.InputTokens + worst.OutputTokens}, true},
		{"tokens: one short", Cap{Tokens: in + out + worst.InputTokens + worst.OutputTokens - 1}, false},
		{"cost: the worst case exactly fits", Cap{MicroUSD: spent.CostMicroUSD + worst.CostMicroUSD}, true},
		{"cost: one micro-USD short", Cap{MicroUSD: spent.CostMicroUSD + worst.CostMicroUSD - 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.calls.Store(0)
			cfg := config(f.srv.URL)
			cfg.Cap, cfg.Clock = tc.cap, clock
			l := newJudge(t, cfg)
			if _, err := l.Judge(context.Background(), c); err != nil {
				t.Fatalf("first call: %v", err)
			}
			_, err := l.Judge(context.Background(), c)
			if tc.ok {
				if err != nil || f.calls.Load() != 2 {
					t.Fatalf("second call: %v after %d calls", err, f.calls.Load())
				}
				return
			}
			wantCode(t, err, continuity.CodeForbidden)
			if !errors.Is(err, ErrOverBudget) || f.calls.Load() != 1 || l.Spent("t1") != spent {
				t.Fatalf("second call: %v after %d calls, spent %+v; want ErrOverBudget without calling", err, f.calls.Load(), l.Spent("t1"))
			}
			other := c
			other.Tenant = "t2"
			if _, err := l.Judge(context.Background(), other); err != nil {
				t.Fatalf("another tenant: %v", err)
			}
		})
	}
	t.Run("a new period", func(t *testing.T) {
		cfg := config(f.srv.URL)
		cfg.Cap, cfg.Clock = Cap{Tokens: in + out + worst.InputTokens + worst.OutputTokens - 1}, clock
		l := newJudge(t, cfg)
		if _, err := l.Judge(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		defer func(at time.Time) { now = at }(now)
		now = time.Date(2026, 11, 30, 23, 59, 59, 999999999, time.UTC)
		if _, err := l.Judge(context.Background(), c); !errors.Is(err, ErrOverBudget) {
			t.Fatalf("the last instant of the UTC day: %v, want ErrOverBudget", err)
		}
		now = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		if _, err := l.Judge(context.Background(), c); err != nil || l.Spent("t1") != spent {
			t.Fatalf("the first instant of the next day: %v, spent %+v; want a fresh window", err, l.Spent("t1"))
		}
	})
	t.Run("calls in flight hold their reservation", func(t *testing.T) {
		entered, release := make(chan struct{}), make(chan struct{})
		slow := newFake(t, func(w http.ResponseWriter, r *http.Request) {
			entered <- struct{}{}
			<-release
			messages(verdictText(), in, out)(w, r)
		})
		cfg := config(slow.srv.URL)
		body, _, _ := newJudge(t, cfg).request(c)
		w := newJudge(t, cfg).priced(int64(len(body)), DefaultMaxTokens)
		cfg.Cap = Cap{Tokens: 2*(w.InputTokens+w.OutputTokens) - 1}
		l := newJudge(t, cfg)
		done := make(chan error)
		go func() { _, err := l.Judge(context.Background(), c); done <- err }()
		<-entered
		_, err := l.Judge(context.Background(), c)
		close(release)
		if !errors.Is(err, ErrOverBudget) {
			t.Fatalf("a second call beside one in flight: %v, want ErrOverBudget", err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}

func TestLLMPromptIsBounded(t *testing.T) {
	var cs []continuity.Memory
	for i := range continuity.MaxBriefedMemories {
		m := commitment(uuid.NewString(), fmt.Sprintf("topic %d", i))
		m.Content = strings.Repeat("c", continuity.MaxContentLen)
		cs = append(cs, m)
	}
	f := newFake(t, messages(verdictText(cs[0].ID, cs[len(cs)-1].ID), 1, 1))
	l := newJudge(t, config(f.srv.URL))
	c := continuity.JudgeCase{Tenant: "t1", Excerpt: strings.Repeat("`", 10) + strings.Repeat("x", continuity.MaxExcerptLen-10), Commitments: cs}
	v, err := l.Judge(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Messages []struct{ Content string } }
	if err := json.Unmarshal(*f.body.Load(), &body); err != nil {
		t.Fatal(err)
	}
	u := body.Messages[0].Content
	start := strings.Index(u, "{")
	data := u[start : strings.LastIndex(u, "}")+1]
	if len(data) > MaxPromptBytes || !strings.Contains(u, strings.Repeat("`", 11)+"json\n") {
		t.Fatalf("data block of %d bytes (bound %d); fence of 11 backticks present: %v", len(data), MaxPromptBytes, strings.Contains(u, strings.Repeat("`", 11)))
	}
	var shown promptData
	if err := json.Unmarshal([]byte(data), &shown); err != nil {
		t.Fatal(err)
	}
	n := len(shown.Commitments)
	if n == 0 || n == len(cs) || len([]rune(shown.Commitments[0].Content)) != MaxPromptContent {
		t.Fatalf("%d of %d commitments shown, content %d characters; want some, not all, cut to %d", n, len(cs), len([]rune(shown.Commitments[0].Content)), MaxPromptContent)
	}
	if !slices.Equal(v.Completed, ids(cs[0])) {
		t.Fatalf("verdict %v: want the shown one only, the unshown last one dropped", v.Completed)
	}
}

func TestNewLLM(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(c *LLMConfig)
		field string
	}{
		{"valid", func(*LLMConfig) {}, ""},
		{"no key is allowed", func(c *LLMConfig) { c.APIKey = "" }, ""},
		{"no URL", func(c *LLMConfig) { c.URL = "" }, "url"},
		{"not http", func(c *LLMConfig) { c.URL = "ftp://h/v1/messages" }, "url"},
		{"no host", func(c *LLMConfig) { c.URL = "http:///v1/messages" }, "url"},
		{"a key of two lines", func(c *LLMConfig) { c.APIKey = testKey + "\nx: y" }, "apiKey"},
		{"no model", func(c *LLMConfig) { c.Model = "" }, "model"},
		{"a version of two lines", func(c *LLMConfig) { c.Version = "a\nb" }, "version"},
		{"max tokens at the bound", func(c *LLMConfig) { c.MaxTokens = MaxOutputTokens }, ""},
		{"max tokens one over", func(c *LLMConfig) { c.MaxTokens = MaxOutputTokens + 1 }, "maxTokens"},
		{"negative max tokens", func(c *LLMConfig) { c.MaxTokens = -1 }, "maxTokens"},
		{"timeout at the bound", func(c *LLMConfig) { c.Timeout = MaxTimeout }, ""},
		{"timeout over", func(c *LLMConfig) { c.Timeout = MaxTimeout + time.Nanosecond }, "timeout"},
		{"negative timeout", func(c *LLMConfig) { c.Timeout = -time.Second }, "timeout"},
		{"price at the bound", func(c *LLMConfig) { c.PriceOutPerMTok = MaxPrice }, ""},
		{"price over", func(c *LLMConfig) { c.PriceInPerMTok = MaxPrice + 1 }, "priceInPerMTok"},
		{"negative price", func(c *LLMConfig) { c.PriceOutPerMTok = -1 }, "priceOutPerMTok"},
		{"negative token cap", func(c *LLMConfig) { c.Cap.Tokens = -1 }, "cap.tokens"},
		{"negative cost cap", func(c *LLMConfig) { c.Cap.MicroUSD = -1 }, "cap.microUsd"},
		{"negative cap period", func(c *LLMConfig) { c.Cap.Period = -time.Second }, "cap.period"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config("http://127.0.0.1:1/v1/messages")
			tc.edit(&cfg)
			_, err := NewLLM(cfg)
			if tc.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantCode(t, err, continuity.CodeInvalid)
			if continuity.ErrorFields(err)[tc.field] == "" {
				t.Fatalf("error %v does not name %s", err, tc.field)
			}
		})
	}
}

func TestPriced(t *testing.T) {
	l := newJudge(t, LLMConfig{URL: "http://h", Model: "m", PriceInPerMTok: 1, PriceOutPerMTok: 3_000_000})
	for _, tc := range []struct{ in, out, cost int64 }{
		{0, 0, 0},
		{1, 0, 1},         // a millionth of a micro-USD rounds up to one
		{1_000_000, 0, 1}, // exactly one
		{1_000_001, 0, 2}, // one over
		{0, 1, 3},         // 3 micro-USD per output token
		{MaxUsageTokens * 3, MaxUsageTokens, MaxUsageTokens*3/1_000_000 + MaxUsageTokens*3}, // the bounds do not overflow
	} {
		if got := l.priced(tc.in, tc.out); got.CostMicroUSD != tc.cost || got.InputTokens != tc.in || got.OutputTokens != tc.out {
			t.Errorf("priced(%d, %d) = %+v, want cost %d", tc.in, tc.out, got, tc.cost)
		}
	}
}

// FuzzParseVerdict feeds the verdict parser arbitrary text: it never panics,
// and what it accepts names only shown ids.
func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{verdictText(lease.ID), `{"completed":[]}`, `{"completed":[1]}`, "{}", "", `{"completed":["` + docs.ID.String() + `"]} x`} {
		f.Add(s)
	}
	shown := map[uuid.UUID]bool{lease.ID: true}
	f.Fuzz(func(t *testing.T, text string) {
		got, err := ParseVerdict(text, shown)
		if err != nil {
			if !errors.Is(err, ErrAnswer) || len(got) != 0 {
				t.Fatalf("error %v with %v", err, got)
			}
			return
		}
		for id := range got {
			if !shown[id] {
				t.Fatalf("accepted %v, not shown", id)
			}
		}
	})
}
