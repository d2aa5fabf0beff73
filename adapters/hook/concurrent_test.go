package hook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/batonhq/baton/adapters/hook"
	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// TestConcurrentHooks: 32 hook invocations at once on one baton home, as
// the processes of a person's sessions overlap (Stops and PreCompacts of
// eight conversations, four each, each invocation opening its own store
// while it renders or seals): every one succeeds silently, leaves its
// receipt, and each conversation's bottle is whole.
func TestConcurrentHooks(t *testing.T) {
	home := captureDir(t)
	batonHome := filepath.Join(home, ".baton")
	payload := func(file, session string) []byte {
		t.Helper()
		data, err := os.ReadFile(filepath.Join("testdata", "payloads", "claude-code", file))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(rehome(data, home), &m); err != nil {
			t.Fatal(err)
		}
		m["session_id"] = session
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	invoke := func(file, session string) (string, string) {
		var out, errOut bytes.Buffer
		inv := hook.Invocation{Harness: "claude-code", Stdin: bytes.NewReader(payload(file, session)), Stdout: &out, Stderr: &errOut,
			Dir: filepath.Join(home, "project"), Home: batonHome, Open: opener(t, batonHome)}
		inv.Run(context.Background())
		return out.String(), errOut.String()
	}
	const sessions, each = 8, 4
	for s := range sessions {
		if _, stderr := invoke("stdin-SessionStart-startup.json", fmt.Sprintf("c%d", s)); stderr != "" {
			t.Fatalf("start c%d: %s", s, stderr)
		}
	}
	var wg sync.WaitGroup
	stderrs := make([]string, sessions*each)
	for i := range sessions * each {
		file := "stdin-Stop.json"
		if i%2 == 1 {
			file = "stdin-PreCompact.json"
		}
		wg.Go(func() { _, stderrs[i] = invoke(file, fmt.Sprintf("c%d", i%sessions)) })
	}
	wg.Wait()
	for i, s := range stderrs {
		if s != "" {
			t.Errorf("invocation %d: stderr %q", i, s)
		}
	}
	api, err := opener(t, batonHome)(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	es, err := api.Ledger(context.Background(), uuid.Nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	received := map[string]int{}
	for _, e := range es {
		switch e.Event {
		case continuity.EventReceived:
			received[e.Fields["provider_event"]]++
		case continuity.EventFailed:
			t.Errorf("failure in the ledger: %v", e.Fields)
		}
	}
	if received["Stop"] != sessions*each/2 || received["PreCompact"] != sessions*each/2 {
		t.Errorf("receipts %v, want %d Stop and %d PreCompact", received, sessions*each/2, sessions*each/2)
	}
	for s := range sessions {
		index := filepath.Join(batonHome, "bottles", "claude-code", fmt.Sprintf("c%d.bottle", s), "index.md")
		data, err := os.ReadFile(index)
		if err != nil || !strings.Contains(string(data), "page-") {
			t.Errorf("c%d's bottle index: %v %.80q", s, err, data)
		}
	}
}
