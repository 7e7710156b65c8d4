package localexec

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// groupRunning reports whether a process of group pgid is still running.
// kill(-pgid, 0) is not the answer: it succeeds while a member is a
// zombie, and a killed script's children are orphans whose reaping is up
// to whichever process adopts them (an init that reaps every couple of
// seconds kept a cancelled command "running" that long). A member counts
// when its /proc stat names the group and a state other than zombie (Z)
// or dead (X).
func groupRunning(pgid int) bool {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	want := []byte(strconv.Itoa(pgid))
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // gone since the listing
		}
		state, pgrp, ok := statGroup(b)
		if ok && bytes.Equal(pgrp, want) && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// statGroup is the state and process group fields of a /proc/<pid>/stat
// line ("pid (comm) state ppid pgrp …"; comm may hold spaces and
// parentheses, so the fields are counted after its last ')').
func statGroup(stat []byte) (state byte, pgrp []byte, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, nil, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, nil, false
	}
	return f[0][0], f[2], true
}
