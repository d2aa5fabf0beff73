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

// waitIdle waits until the text printed last shows prompt after every
// busy marker the program printed (a spinner's label, a running hook): the
// program is ready for input.
func (t *terminal) waitIdle(prompt string, busy []string, timeout time.Duration) error {
	return t.waitFor(fmt.Sprintf("%q after %q", prompt, busy), timeout, func() bool {
		txt := t.text()
		last := -1
		for _, b := range busy {
			last = max(last, strings.LastIndex(txt, b))
		}
		return strings.LastIndex(txt, prompt) > last
	})
}

// command types line, waits until the terminal shows it, and submits it
// with a carriage return sent on its own (sent together, a TUI takes it
// for a paste and inserts a newline). Keystrokes a TUI receives while it
// switches its terminal modes (around a hook's process, for one) are
// dropped, so a line that does not show within echoWait is typed again,
// up to timeout.
func (t *terminal) command(line string, timeout time.Duration) error {
	const echoWait = 3 * time.Second
	deadline := time.Now().Add(timeout)
	for {
		from := len(t.text())
		if _, err := io.WriteString(t.master, line); err != nil {
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
