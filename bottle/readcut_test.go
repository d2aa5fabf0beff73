package bottle

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRenderStopsAtTheBudget: a render whose context has ended reads its
// transcript to a line's end past the first readCheckEvery bytes, writes
// the bottle of what it read with ErrReadCut and keeps its cursor there; the
// next render reads on and ends equal to a render that read the file in
// one go. A seal under the ended context fails with ErrReadCut and arms no
// marker.
func TestRenderStopsAtTheBudget(t *testing.T) {
	var l transcriptLines
	for i := range 120 {
		l.user("question " + strconv.Itoa(i) + " " + strings.Repeat("q", 12_000))
		l.assistant("m"+strconv.Itoa(i), "answer "+strconv.Itoa(i)+" "+strings.Repeat("a", 12_000))
	}
	path := writeTranscript(t, l.String())
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < 2*readCheckEvery {
		t.Fatalf("the transcript is %d bytes: want more than two read checks' worth", fi.Size())
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()

	b := &Bottler{Home: t.TempDir(), Clock: newFakeClock()}
	got, err := b.Render(ended, "s", path)
	if !errors.Is(err, ErrReadCut) {
		t.Fatalf("a render under an ended context: %v, want ErrReadCut", err)
	}
	st := stateAt(t, filepath.Join(b.Dir(), "s.lock"))
	switch {
	case st == nil:
		t.Fatal("the cut render kept no cursor")
	case st.Cursor.Offset < readCheckEvery || st.Cursor.Offset >= fi.Size():
		t.Fatalf("cursor at %d of %d: want it past the first check and short of the end", st.Cursor.Offset, fi.Size())
	case !strings.Contains(readBottleAt(t, got.Path), "question 0 "):
		t.Fatal("the cut render's bottle lacks the turns it read")
	case strings.Contains(readBottleAt(t, got.Path), "answer 119 "):
		t.Fatal("the cut render's bottle holds the last turn it never read")
	}

	got, err = b.Render(context.Background(), "s", path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := (&Bottler{Home: t.TempDir(), Clock: newFakeClock()}).Render(context.Background(), "s", path)
	if err != nil {
		t.Fatal(err)
	}
	if readBottleAt(t, got.Path) != readBottleAt(t, want.Path) {
		t.Error("the render that read on differs from a render of the whole file")
	}

	markers := newMemMarkers()
	sealer := &Bottler{Home: t.TempDir(), Clock: newFakeClock(), Marker: markers}
	if _, err := sealer.Seal(ended, "s", path, 0); !errors.Is(err, ErrReadCut) {
		t.Fatalf("a seal under an ended context: %v, want ErrReadCut", err)
	}
	if _, ok, _ := markers.ClaimBottle(context.Background(), "s"); ok {
		t.Error("the cut seal armed a marker")
	}
}

// TestReadCutInALongLine: a read under an ended context stops within a
// line of many megabytes too (it never ends within the budget), returning
// the line's start so the next read measures it again.
func TestReadCutInALongLine(t *testing.T) {
	var l transcriptLines
	l.user("before")
	head := int64(len(l.String()))
	content := l.String() + strings.Repeat("x", 5*readCheckEvery) + "\n"
	path := writeTranscript(t, content)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	var tr Transcript
	off, err := tr.readLinesUntil(ended, f, 0)
	if !errors.Is(err, ErrReadCut) || off != head {
		t.Fatalf("read to %d, %v: want ErrReadCut at the long line's start %d", off, err, head)
	}
	var whole Transcript
	if off, err := whole.readLinesUntil(context.Background(), f, 0); err != nil || off != int64(len(content)) {
		t.Fatalf("a read with time: to %d, %v; want the end %d", off, err, len(content))
	}
}
