package bottle

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestArchiveRacingRenders: a /clear (Archive) while other processes
// render the same session and the harness appends whole turns leaves every
// turn in exactly one of the two bottles, whole (its prompt and its reply
// together), with nothing lost and no render failing or hanging.
func TestArchiveRacingRenders(t *testing.T) {
	ctx := context.Background()
	for iter := range 10 {
		home := t.TempDir()
		path := writeTranscript(t, "")
		var mu sync.Mutex // the harness appends one turn at a time
		n := 0
		appendTurn := func() {
			mu.Lock()
			defer mu.Unlock()
			n++
			var l transcriptLines
			l.min = n * 2
			appendFile(t, path, l.user(fmt.Sprintf("prompt-%03d", n)).assistant(fmt.Sprintf("a%d", n), fmt.Sprintf("answer-%03d", n)).String())
		}
		for range 5 {
			appendTurn()
		}
		var renders, appends sync.WaitGroup
		stop := make(chan struct{})
		for range 3 {
			renders.Go(func() {
				b := &Bottler{Home: home, Agent: "codex", Clock: newFakeClock()}
				for {
					select {
					case <-stop:
						return
					default:
					}
					if _, err := b.Render(ctx, session, path); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		appends.Go(func() {
			for range 10 {
				appendTurn()
			}
		})
		b := &Bottler{Home: home, Agent: "codex", Clock: newFakeClock()}
		archived, err := b.Archive(ctx, session, path)
		if err != nil {
			t.Fatal(err)
		}
		appends.Wait()
		close(stop)
		renders.Wait()
		appendTurn()
		if _, err := b.Render(ctx, session, path); err != nil {
			t.Fatal(err)
		}
		cur, err := b.Read(session)
		if err != nil {
			t.Fatal(err)
		}
		old, err := readBottle(archived)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= n; i++ {
			p, a := fmt.Sprintf("prompt-%03d", i), fmt.Sprintf("answer-%03d", i)
			inOld, inNew := strings.Contains(string(old), p), strings.Contains(string(cur), p)
			if inOld == inNew {
				t.Fatalf("iteration %d: turn %d in the archived bottle %v, in the new one %v", iter, i, inOld, inNew)
			}
			if strings.Contains(string(old), a) != inOld || strings.Contains(string(cur), a) != inNew {
				t.Fatalf("iteration %d: turn %d torn across the bottles", iter, i)
			}
		}
	}
}
