package ycql

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gocql/gocql"
)

// The retry decisions are the reference DefaultRetryPolicy's, and each
// retry is counted by cause.
func TestRetryPolicyDecisions(t *testing.T) {
	c := &Counters{}
	r := &RetryPolicy{Max: 1, c: c}
	cases := []struct {
		name string
		err  error
		want gocql.RetryType
	}{
		{"read timeout, enough replicas, no data", &gocql.RequestErrReadTimeout{Received: 2, BlockFor: 2, DataPresent: 0}, gocql.Retry},
		{"read timeout, data present", &gocql.RequestErrReadTimeout{Received: 2, BlockFor: 2, DataPresent: 1}, gocql.Rethrow},
		{"read timeout, too few replicas", &gocql.RequestErrReadTimeout{Received: 1, BlockFor: 2}, gocql.Rethrow},
		{"write timeout of the batch log", &gocql.RequestErrWriteTimeout{WriteType: "BATCH_LOG"}, gocql.Retry},
		{"write timeout of a simple write", &gocql.RequestErrWriteTimeout{WriteType: "SIMPLE"}, gocql.Rethrow},
		{"unavailable", &gocql.RequestErrUnavailable{}, gocql.RetryNextHost},
		{"client timeout, not idempotent", gocql.ErrTimeoutNoResponse, gocql.Rethrow},
		{"syntax error", errors.New("line 1:0 no viable alternative"), gocql.Rethrow},
	}
	for _, tc := range cases {
		if got := r.GetRetryType(tc.err); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if c.RetriesReadTimeout.Load() != 1 || c.RetriesWriteTimeout.Load() != 1 || c.RetriesUnavailable.Load() != 1 || c.RetriesConnection.Load() != 0 {
		t.Errorf("counters %d %d %d %d", c.RetriesReadTimeout.Load(), c.RetriesWriteTimeout.Load(), c.RetriesUnavailable.Load(), c.RetriesConnection.Load())
	}
	r.Idempotent = true
	if got := r.GetRetryType(fmt.Errorf("wrapped: %w", gocql.ErrTimeoutNoResponse)); got != gocql.RetryNextHost || c.RetriesConnection.Load() != 1 {
		t.Errorf("idempotent client timeout: %v, counted %d", got, c.RetriesConnection.Load())
	}
}

type attempts struct {
	n   int
	ctx context.Context
}

func (a attempts) Attempts() int                     { return a.n }
func (a attempts) SetConsistency(gocql.Consistency)  {}
func (a attempts) GetConsistency() gocql.Consistency { return gocql.One }
func (a attempts) Context() context.Context          { return a.ctx }

func TestRetryPolicyBoundsAttempts(t *testing.T) {
	r := &RetryPolicy{Max: 1, c: &Counters{}}
	bg := context.Background()
	if !r.Attempt(attempts{1, bg}) || r.Attempt(attempts{2, bg}) {
		t.Error("want one retry after the first attempt, none after the second")
	}
	cancelled, cancel := context.WithCancel(bg)
	cancel()
	if r.Attempt(attempts{1, cancelled}) {
		t.Error("a cancelled statement was retried")
	}
	if (&RetryPolicy{Max: 0, c: &Counters{}}).Attempt(attempts{1, bg}) {
		t.Error("Max 0 retried")
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		err  error
		want ErrorKind
	}{
		{nil, KindOK},
		{gocql.ErrTimeoutNoResponse, KindTimeout},
		{&gocql.RequestErrWriteTimeout{}, KindTimeout},
		{context.DeadlineExceeded, KindTimeout},
		{context.Canceled, KindCancelled},
		{&gocql.RequestErrUnavailable{}, KindUnavailable},
		{gocql.ErrNoConnections, KindUnavailable},
		{gocql.ErrConnectionClosed, KindConnection},
		{errors.New("Invalid query"), KindOther},
	} {
		if got := Classify(c.err); got != c.want {
			t.Errorf("Classify(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
