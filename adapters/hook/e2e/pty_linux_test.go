//go:build linux

package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// terminal runs a program on a pseudo-terminal, for the clients whose
// slash commands only work interactively. It keeps everything the program
// printed, escape sequences stripped, for waits and the failure log.
type terminal struct {
	cmd    *exec.Cmd
	master *os.File
	done   chan struct{}
	err    error // the program's exit, once done is closed
	// retyped counts the lines command typed again, for the log.
	retyped int

	mu     sync.Mutex
	screen bytes.Buffer
}

// openPTY opens a pseudo-terminal pair of rows×cols.
func openPTY(rows, cols uint16) (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	ioctl := func(req uintptr, arg unsafe.Pointer) error {
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), req, uintptr(arg)); e != 0 {
			return e
		}
		return nil
	}
	var unlock int32
	var n uint32
	ws := [4]uint16{rows, cols, 0, 0}
	if err = ioctl(syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err == nil {
		err = ioctl(syscall.TIOCGPTN, unsafe.Pointer(&n))
	}
	if err == nil {
		err = ioctl(syscall.TIOCSWINSZ, unsafe.Pointer(&ws))
	}
	if err == nil {
		slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	}
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	return master, slave, nil
}

// startTerminal starts cmd on a new pseudo-terminal as the leader of a new
// session (so the whole session can be killed as a group).
func startTerminal(cmd *exec.Cmd) (*terminal, error) {
	master, slave, err := openPTY(40, 120)
	if err != nil {
		return nil, err
	}
	defer slave.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		master.Close()
		return nil, err
	}
	t := &terminal{cmd: cmd, master: master, done: make(chan struct{})}
	go t.read()
	go func() {
		t.err = cmd.Wait()
		close(t.done)
	}()
	return t, nil
}

// ansi matches the terminal escape sequences a TUI prints.
var ansi = regexp.MustCompile(`\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78])`)

func (t *terminal) read() {
	buf := make([]byte, 32<<10)
	for {
		n, err := t.master.Read(buf)
		if n > 0 {
			t.mu.Lock()
			t.screen.Write(buf[:n])
			t.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// text is what the program printed so far, escape sequences stripped.
func (t *terminal) text() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return ansi.ReplaceAllString(t.screen.String(), "")
}

// waitFor waits until cond holds, the program exits or timeout passes,
// polling every 100 ms.
func (t *terminal) waitFor(what string, timeout time.Duration, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return nil
		}
		select {
		case <-t.done:
			if cond() {
				return nil
			}
			return fmt.Errorf("waiting for %s: the program exited (%v)", what, t.err)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waiting for %s: nothing after %s", what, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitText waits until the printed text, from offset from, contains s.
func (t *terminal) waitText(s string, from int, timeout time.Duration) error {
	return t.waitFor(fmt.Sprintf("%q on the screen", s), timeout, func() bool {
		txt := t.text()
		return len(txt) >= from && strings.Contains(txt[from:], s)
	})
}

// waitIdle waits until the program is ready for input: the last frame it
// drew (the text since the prompt's previous appearance: a TUI draws its
// status line, a spinner's label or a running hook, above its input box)
// shows prompt and no busy marker, and nothing more was printed for
// idleQuiet. A hook still running when a line is typed (on a loaded
// machine, a SessionStart's process outlives the resumed chat's first
// frame) delays the keystrokes past command's echo wait.
func (t *terminal) waitIdle(prompt string, busy []string, timeout time.Duration) error {
	const idleQuiet = 1500 * time.Millisecond
	var since time.Time
	seen := -1
	return t.waitFor(fmt.Sprintf("%q with none of %q", prompt, busy), timeout, func() bool {
		txt := t.text()
		if !lastFrameIdle(txt, prompt, busy) {
			since, seen = time.Time{}, -1
			return false
		}
		if len(txt) != seen {
			since, seen = time.Now(), len(txt)
		}
		return time.Since(since) >= idleQuiet
	})
}

// lastFrameIdle reports whether txt's last frame, the text since the
// second to last prompt, shows prompt and none of busy; before a second
// prompt was drawn, whether prompt comes after every busy marker.
func lastFrameIdle(txt, prompt string, busy []string) bool {
	last := strings.LastIndex(txt, prompt)
	if last < 0 {
		return false
	}
	prev := strings.LastIndex(txt[:last], prompt)
	for _, b := range busy {
		i := strings.LastIndex(txt, b)
		if prev < 0 && i > last || prev >= 0 && i > prev {
			return false
		}
	}
	return true
}

// command types line, waits until the terminal shows it, and submits it
// with a carriage return sent on its own (sent together, a TUI takes it
// for a paste and inserts a newline). Keystrokes a TUI receives while it
// switches its terminal modes (around a hook's process, for one) are
// dropped, so a line that does not show within echoWait is typed again,
// up to timeout, after as many backspaces as it has bytes: keystrokes that
// were only late arrive before them (a terminal's input is one queue), so
// the input never holds the line twice ("/clear/clear" is a prompt for
// the model, not a command).
func (t *terminal) command(line string, timeout time.Duration) error {
	const echoWait = 3 * time.Second
	deadline := time.Now().Add(timeout)
	for typed := line; ; typed = strings.Repeat("\x7f", len(line)) + line {
		from := len(t.text())
		if _, err := io.WriteString(t.master, typed); err != nil {
			return err
		}
		err := t.waitText(line, from, min(echoWait, time.Until(deadline)))
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return err
		}
		t.retyped++
	}
	_, err := io.WriteString(t.master, "\r")
	return err
}

// close waits for the program to exit within grace, then kills its
// session, and releases the terminal.
func (t *terminal) close(grace time.Duration) error {
	select {
	case <-t.done:
	case <-time.After(grace):
		_ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
		<-t.done
	}
	awaitGroup(t.cmd.Process.Pid, 10*time.Second)
	t.master.Close()
	var exit *exec.ExitError
	if t.err != nil && !errors.As(t.err, &exit) {
		return t.err
	}
	return nil
}

// TestLastFrameIdle: the program is idle when its last frame shows the
// prompt and no busy marker, whatever earlier frames showed.
func TestLastFrameIdle(t *testing.T) {
	const p = "Type your message"
	busy := []string{"Initializing", "Executing Hook"}
	for _, tc := range []struct {
		txt  string
		idle bool
	}{
		{"", false},
		{"Initializing", false},
		{"Initializing " + p, true},
		{p + " Initializing", false},
		{"Initializing " + p + " footer Executing Hooks: baton-start " + p + " footer", false},
		{"Executing Hooks: baton-start " + p + " footer ? for shortcuts " + p + " footer", true},
		{p + " Executing Hook: baton-stop " + p + " footer " + p, true},
		{p + " " + p + " Executing Hook: baton-stop", false},
	} {
		if got := lastFrameIdle(tc.txt, p, busy); got != tc.idle {
			t.Errorf("lastFrameIdle(%q) = %v, want %v", tc.txt, got, tc.idle)
		}
	}
}
