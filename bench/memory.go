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

// memPollInterval is how often /proc is read while a command runs.
const memPollInterval = 20 * time.Millisecond

// fleetWatcher polls /proc for the peak RSS and CPU time of two kinds of process while one
// terraform command runs: the provider built for this benchmark (its executable path is this run's own), and the
// terraform process working in dir (the CLI is shared with other users of the machine, so it is
// told apart by its working directory).
type fleetWatcher struct {
	provider, terraform, dir string

	done                    chan struct{}
	wg                      sync.WaitGroup
	providerKB, terraformKB int64
	// CPU ticks (user + system) last seen per process, for the provider and for terraform.
	providerTicks, terraformTicks map[string]int64
}

// fleetUsage is what a fleetWatcher saw: peak RSS in MiB and CPU time of the provider's
// processes (together) and terraform's.
type fleetUsage struct {
	providerMiB, terraformMiB float64
	providerCPU, terraformCPU time.Duration
}

// startFleetWatcher starts polling; with terraform "" it watches the provider alone.
func startFleetWatcher(provider, terraform, dir string) *fleetWatcher {
	w := &fleetWatcher{provider: provider, terraform: terraform, dir: dir, done: make(chan struct{}),
		providerTicks: map[string]int64{}, terraformTicks: map[string]int64{}}
	w.wg.Add(1)
	go func() {
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
	}()
	return w
}

// stop ends the polling and returns what it saw. CPU time is as of the last poll: a process's
// last 20 ms may be missed.
func (w *fleetWatcher) stop() fleetUsage {
	close(w.done)
	w.wg.Wait()
	sum := func(m map[string]int64) time.Duration {
		var n int64
		for _, t := range m {
			n += t
		}
		return time.Duration(n) * time.Second / clockTicks
	}
	return fleetUsage{providerMiB: float64(w.providerKB) / 1024, terraformMiB: float64(w.terraformKB) / 1024,
		providerCPU: sum(w.providerTicks), terraformCPU: sum(w.terraformTicks)}
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on every Linux architecture
// Go supports.
const clockTicks = 100

// cpuTicks is a process's user plus system time in clock ticks (fields 14 and 15 of
// /proc/PID/stat, counted after the command name, which may hold spaces); -1 when it has gone.
func cpuTicks(pid string) int64 {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return -1
	}
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return -1
	}
	fields := strings.Fields(string(stat[i+1:])) // field 3 (state) onwards
	if len(fields) < 13 {
		return -1
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return utime + stime
}

func (w *fleetWatcher) poll() {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, ent := range entries {
		pid := ent.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		exe, err := os.Readlink("/proc/" + pid + "/exe")
		if err != nil {
			continue
		}
		switch exe {
		case w.provider:
			w.providerKB = max(w.providerKB, peakKB(pid))
			w.providerTicks[pid] = max(w.providerTicks[pid], cpuTicks(pid))
		case w.terraform:
			if cwd, err := os.Readlink("/proc/" + pid + "/cwd"); err == nil && cwd == w.dir {
				w.terraformKB = max(w.terraformKB, peakKB(pid))
				w.terraformTicks[pid] = max(w.terraformTicks[pid], cpuTicks(pid))
			}
		}
	}
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
