// Package scriptrec reads the records a provisioning script prints on its
// standard output: lines "<PREFIX> <key> <value>", which let a shell script
// report facts (checksums, versions, limits) to Go without a parser per
// script. Other lines are ignored, so a script may also print free text.
package scriptrec

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/provision"
)

// Record is one "<key> <value>" pair; Value may be empty or contain spaces.
type Record struct{ Key, Value string }

// Records are the records a script printed, in order.
type Records []Record

// Parse reads the lines of stdout that start with prefix (which should end
// with a space, such as "YBB "); other lines are ignored. Lines up to 1 MiB
// are read whole.
func Parse(prefix string, stdout []byte) Records {
	var out Records
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), prefix)
		if !ok {
			continue
		}
		key, value, _ := strings.Cut(line, " ")
		out = append(out, Record{key, value})
	}
	return out
}

// Last is the value of the last record with the key; ok is false when no
// record has it.
func (rs Records) Last(key string) (value string, ok bool) {
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].Key == key {
			return rs[i].Value, true
		}
	}
	return "", false
}

// All are the values of every record with the key, in order.
func (rs Records) All(key string) []string {
	var out []string
	for _, r := range rs {
		if r.Key == key {
			out = append(out, r.Value)
		}
	}
	return out
}

// Run runs a script on h (with opts, such as its standard input) and
// returns its records. A script that stopped in the run's own-directory
// library says why in the error's class (provision.OwnError: 2 for a
// refused path, 4 for a directory that is not the run's).
func Run(ctx context.Context, r provision.Runner, h infra.Host, step, script, prefix string, opts ...provision.RunOption) (Records, error) {
	res, err := r.Run(ctx, h, script, append([]provision.RunOption{provision.Step(step)}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", step, h.Name, err)
	}
	recs := Parse(prefix, res.Stdout)
	if err := provision.OwnError(h, res); err != nil {
		return recs, fmt.Errorf("%s: %w", step, err)
	}
	return recs, nil
}
