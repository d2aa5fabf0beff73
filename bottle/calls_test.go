package bottle

import (
	"strings"
	"testing"
)

// roundTrip passes a transcript through the render cache's encoding, as
// the cache does between renders: what is not in an exported field is lost.
func roundTrip(t testing.TB, tr *Transcript) *Transcript {
	t.Helper()
	data, err := encodeState(nil, &state{Transcript: *tr})
	if err != nil {
		t.Fatal(err)
	}
	st, err := decodeState(data)
	if err != nil {
		t.Fatal(err)
	}
	return &st.Transcript
}

// TestResultAfterCacheLoad: a tool call read before the cursor is marked
// done by a result read after it, even when a newer call comes first.
func TestResultAfterCacheLoad(t *testing.T) {
	var before, after transcriptLines
	before.user("go").call("tu1", "Bash", `{"command":"make"}`)
	after.min = 2
	after.call("tu2", "Read", `{"file_path":"/a"}`).result("tu1", true)
	head := before.String()
	var tr Transcript
	end, err := tr.ReadLines(strings.NewReader(head), 0)
	if err != nil || end != int64(len(head)) {
		t.Fatalf("end %d err %v", end, err)
	}
	loaded := roundTrip(t, &tr)
	// ReadLines takes the whole file and the cursor: offsets are the file's.
	if _, err := loaded.ReadLines(strings.NewReader(head+after.String()), end); err != nil {
		t.Fatal(err)
	}
	if got, want := summary(loaded.Entries), "user:go | call:Bash:tu1:make:done:failed | call:Read:tu2:/a"; got != want {
		t.Errorf("after a cache load\n got %q\nwant %q", got, want)
	}
}
