package hook_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/batonhq/baton/adapters/hook"
)

// TestConcurrentHooks: 32 hook invocations at once on one baton home, as
// the processes of a person's sessions overlap (Stops and PreCompacts of
// eight conversations, four each, each invocation opening its own store
// while it renders or seals): every one succeeds silently, leaves its
// receipt, and each conversation's bottle is whole.
func TestConcurrentHooks(t *testing.T) {
	home := captureDir(t)
	batonHome := filepath.Join(home, ".baton")
	invoke := func(file, session string) (string, string) {
		var out, errOut bytes.Buffer
		inv := hook.Invocation{Harness: "claude-code", Stdin: bytes.NewReader(claudePayload(t, home, file, session, "-")), Stdout: &out, Stderr: &errOut,
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
		// Conversation i%sessions gets two Stops and two PreCompacts,
		// which race on its bottle.
		file := "stdin-Stop.json"
		if i/sessions%2 == 1 {
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
	want := strings.Repeat("received claude-code PreCompact\n", sessions*each/2) +
		strings.Repeat("received claude-code SessionStart\n", sessions) + strings.Repeat("received claude-code Stop\n", sessions*each/2)
	if got := ledger(t, batonHome); got != want {
		t.Errorf("ledger:\n%s\nwant:\n%s", got, want)
	}
	for s := range sessions {
		index := filepath.Join(batonHome, "bottles", "claude-code", fmt.Sprintf("c%d.bottle", s), "index.md")
		data, err := os.ReadFile(index)
		if err != nil || !strings.Contains(string(data), "page-") {
			t.Errorf("c%d's bottle index: %v %.80q", s, err, data)
		}
	}
}
