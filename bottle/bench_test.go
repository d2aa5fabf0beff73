package bottle

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
)

// benchSize is the size of the generated marathon transcript.
const benchSize = 50 << 20

var (
	benchOnce sync.Once
	benchDir  string
	benchPath string
	benchErr  error
)

// marathonOut, when set, makes the test binary write one marathon there and
// exit, running nothing: adapters/hook/bench.sh times `baton hook stop`
// over it (go test ./bottle -args -marathon PATH).
var marathonOut = flag.String("marathon", "", "write a generated ~50 MB Claude Code transcript to this path and exit")

func TestMain(m *testing.M) {
	flag.Parse()
	if *marathonOut != "" {
		if err := writeMarathonFile(*marathonOut); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if benchDir != "" {
		_ = os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// marathon returns a generated Claude Code transcript of about 50 MB,
// written once per test binary run into a temporary directory.
func marathon(b *testing.B) string {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "bottle-bench-")
		if benchErr != nil {
			return
		}
		benchPath = filepath.Join(benchDir, "marathon.jsonl")
		benchErr = writeMarathonFile(benchPath)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchPath
}

// writeMarathonFile writes a generated Claude Code transcript of about
// benchSize bytes to path.
func writeMarathonFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	var n int64
	for turn := 0; n < benchSize; turn++ {
		k, err := writeTurn(w, turn, 8<<10)
		if err != nil {
			_ = f.Close()
			return err
		}
		n += int64(k)
	}
	return errors.Join(w.Flush(), f.Close())
}

// writeTurn writes one realistic turn: a prompt, hook attachments, assistant
// text around five tool calls whose results carry resultSize bytes each (the
// tool traffic that dominates real transcripts), and a closing message.
func writeTurn(w io.Writer, turn, resultSize int) (int, error) {
	ts := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(turn) * time.Minute).Format(time.RFC3339Nano)
	body := strings.Repeat("lorem ipsum dolor sit amet ", resultSize/27)
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line(`{"type":"user","isSidechain":false,"timestamp":%q,"sessionId":"bench","cwd":"/work/proj","message":{"role":"user","content":"Turn %d: please refactor the module <private>token-%d</private> and keep the tests green; %s"}}`, ts, turn, turn, strings.Repeat("details ", 30))
	line(`{"type":"attachment","timestamp":%q,"attachment":{"type":"hook_success","content":"%s"}}`, ts, strings.Repeat("a", 400))
	line(`{"type":"assistant","timestamp":%q,"message":{"id":"msg_%d_0","role":"assistant","content":[{"type":"thinking","thinking":"%s"},{"type":"text","text":"Looking at the module for turn %d. %s"}]}}`, ts, turn, strings.Repeat("t", 600), turn, strings.Repeat("Plan step. ", 40))
	tools := []struct{ name, input string }{
		{"Read", `{"file_path":"/work/proj/pkg/mod%d.go"}`},
		{"Grep", `{"pattern":"func Handle%d","path":"."}`},
		{"Edit", `{"file_path":"/work/proj/pkg/mod%d.go","old_string":"a","new_string":"b"}`},
		{"Bash", `{"command":"go test ./pkg/... -run Test%d","description":"tests"}`},
		{"Write", `{"file_path":"/work/proj/pkg/new%d.go","content":"package pkg"}`},
	}
	for i, tool := range tools {
		id := fmt.Sprintf("toolu_%d_%d", turn, i)
		line(`{"type":"assistant","timestamp":%q,"message":{"id":"msg_%d_%d","role":"assistant","content":[{"type":"tool_use","id":%q,"name":%q,"input":%s}]}}`, ts, turn, i+1, id, tool.name, fmt.Sprintf(tool.input, turn))
		line(`{"type":"user","timestamp":%q,"message":{"role":"user","content":[{"tool_use_id":%q,"type":"tool_result","content":"%s","is_error":%v}]},"toolUseResult":{"stdout":"%s"}}`, ts, id, body, i == 3 && turn%7 == 0, body[:len(body)/4])
	}
	line(`{"type":"assistant","timestamp":%q,"message":{"id":"msg_%d_9","role":"assistant","content":[{"type":"text","text":"Done with turn %d: %s"}]}}`, ts, turn, turn, strings.Repeat("Summary sentence. ", 25))
	line(`{"type":"system","subtype":"stop_hook_summary","timestamp":%q}`, ts)
	return io.WriteString(w, b.String())
}

// peakHeap samples live heap bytes while f runs and returns the largest.
func peakHeap(f func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	read := func() {
		metrics.Read(sample)
		peak = max(peak, sample[0].Value.Uint64())
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				read()
			}
		}
	}()
	f()
	close(done)
	<-stopped
	read()
	return peak
}

// benchAgent is the harness whose read limits the benchmark lays the
// bottle out for: the one whose transcript it generates.
const benchAgent = "claude-code"

// dirSize is the total size of the files in dir.
func dirSize(b *testing.B, dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		n += fileSize(b, filepath.Join(dir, e.Name()))
	}
	return n
}

func fileSize(b *testing.B, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}

// BenchmarkReadSplitBaseline is the floor: streaming the transcript and
// splitting it into lines, with no parsing at all.
func BenchmarkReadSplitBaseline(b *testing.B) {
	path := marathon(b)
	b.SetBytes(fileSize(b, path))
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		r := bufio.NewReaderSize(f, readBuffer)
		lines := 0
		for {
			_, err := r.ReadSlice('\n')
			if err == nil {
				lines++
				continue
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			break
		}
		_ = f.Close()
		if lines == 0 {
			b.Fatal("no lines")
		}
	}
}

// BenchmarkFullRender renders the marathon from byte zero: parse, lay out,
// write every page, the index and the cache. It is the heal render after a
// lost cache. The peak heap is sampled on one more render after the timed
// ones, so the sampler's own work is not timed.
func BenchmarkFullRender(b *testing.B) {
	path := marathon(b)
	b.SetBytes(fileSize(b, path))
	b.ReportAllocs()
	ctx := context.Background()
	render := func() string {
		res, err := (&Bottler{Home: b.TempDir(), Agent: benchAgent}).Render(ctx, "bench", path)
		if err != nil {
			b.Fatal(err)
		}
		return res.Path
	}
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		b.StartTimer()
		render()
	}
	b.StopTimer()
	runtime.GC()
	var index string
	peak := peakHeap(func() { index = render() })
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(dirSize(b, filepath.Dir(index)))/(1<<20), "bottle-MB")
}

// BenchmarkIncrementalRender is the routine Stop render: one 10 KB turn was
// appended since the last render; only it is parsed, only the pages from
// the cache's window on are laid out, and only those that changed are
// written, with the index and the cache. The peak heap is sampled on one
// more render after the timed ones.
func BenchmarkIncrementalRender(b *testing.B) {
	src := marathon(b)
	path := filepath.Join(b.TempDir(), "growing.jsonl")
	if err := copyFile(src, path); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	bt := &Bottler{Home: b.TempDir(), Agent: benchAgent}
	if _, err := bt.Render(ctx, "bench", path); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	turn := 1 << 20
	appendTurn := func() {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := writeTurn(f, turn, 1<<10); err != nil { // about 10 KB
			b.Fatal(err)
		}
		_ = f.Close()
		turn++
		runtime.GC()
	}
	render := func() {
		if _, err := bt.Render(ctx, "bench", path); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		b.StopTimer()
		appendTurn()
		b.StartTimer()
		render()
	}
	b.StopTimer()
	appendTurn()
	b.ReportMetric(float64(peakHeap(render))/(1<<20), "peak-heap-MB")
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

// TestTurnSize keeps the incremental benchmark honest about its 10 KB turn.
func TestTurnSize(t *testing.T) {
	n, err := writeTurn(io.Discard, 1, 1<<10)
	if err != nil || n < 9<<10 || n > 12<<10 {
		t.Fatalf("appended turn is %d bytes, want about 10 KB", n)
	}
}
