package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strings"

	"golang.org/x/sys/cpu"
)

// cpuModel is the processor's model name as /proc/cpuinfo gives it
// ("model name"), or GOARCH where there is none.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.Join(strings.Fields(v), " ")
		}
	}
	return runtime.GOARCH
}

var tagRE = regexp.MustCompile(`[^a-z0-9]+`)

// machineTag names the machine type for a results folder, so that
// bench/results keeps one folder per type measured: the CPU's vendor and
// family, its core count and its widest vector instructions the block
// engine has kernels for, e.g. "intel-xeon-16c-avx512" or
// "amd-epyc-2c-avx2".
func machineTag() string {
	m := strings.ToLower(cpuModel())
	for _, noise := range []string{"(r)", "(tm)", "processor", "cpu", "core"} {
		m = strings.ReplaceAll(m, noise, " ")
	}
	words := strings.Fields(tagRE.ReplaceAllString(m, " "))
	if len(words) > 2 {
		words = words[:2]
	}
	isa := "novec"
	switch {
	case cpu.X86.HasAVX512F:
		isa = "avx512"
	case cpu.X86.HasAVX2:
		isa = "avx2"
	}
	return strings.Join(append(words, fmt.Sprintf("%dc", runtime.NumCPU()), isa), "-")
}
