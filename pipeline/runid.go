package pipeline

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// MaxIDLen is the longest run id: what the local provider (and its
// Terraform module) accepts, letters, digits, '.', '_' and '-'.
const MaxIDLen = 64

// NewID makes a run id: profile (cut short when needed), UTC date and
// minute (YYMMDD-HHMM), and 8 random hex digits (32 bits), at most
// MaxIDLen characters.
func NewID(profile string) string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("run id: no randomness: %v", err)) // crypto/rand does not fail on Linux
	}
	// The minute is enough beside the random part (and keeps the paths of
	// the hosts' files, such as a database's Unix socket, short).
	tail := "-" + time.Now().UTC().Format("060102-1504") + "-" + hex.EncodeToString(b)
	p := []byte(profile)
	for i, c := range p {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			p[i] = '-'
		}
	}
	if len(p) == 0 || !(p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z' || p[0] >= '0' && p[0] <= '9') {
		p = append([]byte("r"), p...)
	}
	if n := MaxIDLen - len(tail); len(p) > n {
		p = p[:n]
	}
	return string(p) + tail
}

// newID is the id source New uses (tests replace it).
var newID = NewID

// idAttempts bounds New's retries when a run directory of the id exists.
const idAttempts = 10
