package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// providerComm is what /proc/PID/comm holds for the provider: the kernel keeps the first 15
// bytes of the executable's name ("terraform-provider-kratix").
const providerComm = "terraform-provi"

// memPollInterval is how often /proc is read while a command runs.
const memPollInterval = 20 * time.Millisecond

// memWatcher polls /proc for the provider's processes and keeps the largest peak RSS seen.
// Terraform starts the provider several times per command (validation, plan, apply); the
// largest of them is what a machine running Terraform has to have.
type memWatcher struct {
	binary string
	done   chan struct{}
	wg     sync.WaitGroup
	maxKB  int64
}

// watchProvider starts polling for processes running binary. Other people's provider processes
// (tests running beside the benchmark) have another executable path and are ignored.
func watchProvider(binary string) *memWatcher {
	w := &memWatcher{binary: binary, done: make(chan struct{})}
	w.wg.Add(1)
	go w.loop()
	return w
}

// stop ends the polling and returns the peak in MiB.
func (w *memWatcher) stop() float64 {
	close(w.done)
	w.wg.Wait()
	return float64(w.maxKB) / 1024
}

func (w *memWatcher) loop() {
	defer w.wg.Done()
	t := time.NewTicker(memPollInterval)
	defer t.Stop()
	for {
		w.poll()
		select {
		case <-w.done:
			return
		case <-t.C:
		}
	}
}

func (w *memWatcher) poll() {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, ent := range entries {
		pid := ent.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		if !w.isProvider(pid) {
			continue
		}
		if kb := peakKB(pid); kb > w.maxKB {
			w.maxKB = kb
		}
	}
}

// isProvider checks the cheap comm first, then the executable path.
func (w *memWatcher) isProvider(pid string) bool {
	comm, err := os.ReadFile("/proc/" + pid + "/comm")
	if err != nil || strings.TrimSpace(string(comm)) != providerComm {
		return false
	}
	exe, err := os.Readlink("/proc/" + pid + "/exe")
	return err == nil && exe == w.binary
}

// peakKB is the larger of VmHWM (the peak resident set so far) and VmRSS, in kB; 0 when the
// process has gone.
func peakKB(pid string) int64 {
	status, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	var best int64
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmHWM" && key != "VmRSS") {
			continue
		}
		fields := strings.Fields(value) // "123456 kB"
		if len(fields) == 0 {
			continue
		}
		if kb, err := strconv.ParseInt(fields[0], 10, 64); err == nil && kb > best {
			best = kb
		}
	}
	return best
}
