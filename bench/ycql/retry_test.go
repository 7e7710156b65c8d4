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
		{"write timeout of the batch log, not idempotent", &gocql.RequestErrWriteTimeout{WriteType: "BATCH_LOG"}, gocql.Rethrow},
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
	if c.RetriesReadTimeout.Load() != 1 || c.RetriesWriteTimeout.Load() != 0 || c.RetriesUnavailable.Load() != 1 || c.RetriesConnection.Load() != 0 {
		t.Errorf("counters %d %d %d %d", c.RetriesReadTimeout.Load(), c.RetriesWriteTimeout.Load(), c.RetriesUnavailable.Load(), c.RetriesConnection.Load())
	}
	r.Idempotent = true
	if got := r.GetRetryType(fmt.Errorf("wrapped: %w", gocql.ErrTimeoutNoResponse)); got != gocql.RetryNextHost || c.RetriesConnection.Load() != 1 {
		t.Errorf("idempotent client timeout: %v, counted %d", got, c.RetriesConnection.Load())
	}
	if got := r.GetRetryType(&gocql.RequestErrWriteTimeout{WriteType: "BATCH_LOG"}); got != gocql.Retry || c.RetriesWriteTimeout.Load() != 1 {
		t.Errorf("idempotent batch log write timeout: %v, counted %d", got, c.RetriesWriteTimeout.Load())
	}
}

// serverError is an error response of the server with its code.
type serverError int

func (e serverError) Code() int       { return int(e) }
func (e serverError) Message() string { return "error" }
func (e serverError) Error() string   { return fmt.Sprintf("server error %#x", int(e)) }

// A worker's policy follows each statement as the reference driver's
// RequestHandler applies DefaultRetryPolicy (read in
// cassandra-driver-core 3.10.3-yb-2's sources): timeouts and unavailable
// only as the first retry; request errors of idempotent statements — a
// client timeout, a broken connection, an overloaded or server error — on
// the next host after every failure, until the plan runs out; read and
// write failures never; a bootstrapping host skipped always.
func TestStatementRetryFollowsTheReference(t *testing.T) {
	bg := context.Background()
	type step struct {
		attempts int // the statement's attempts so far
		err      error
		want     gocql.RetryType
	}
	for _, c := range []struct {
		name       string
		idempotent bool
		steps      []step
	}{
		{"client timeouts move on and on", true, []step{
			{1, gocql.ErrTimeoutNoResponse, gocql.RetryNextHost},
			{2, gocql.ErrConnectionClosed, gocql.RetryNextHost},
			{3, serverError(gocql.ErrCodeOverloaded), gocql.RetryNextHost},
			{4, serverError(gocql.ErrCodeServer), gocql.RetryNextHost},
		}},
		{"a timeout after a retry is returned", true, []step{
			{1, gocql.ErrTimeoutNoResponse, gocql.RetryNextHost},
			{2, &gocql.RequestErrReadTimeout{Received: 2, BlockFor: 2}, gocql.Rethrow},
			{2, &gocql.RequestErrUnavailable{}, gocql.Rethrow},
			{2, &gocql.RequestErrWriteTimeout{WriteType: "BATCH_LOG"}, gocql.Rethrow},
		}},
		{"the first retry of a timeout", true, []step{
			{1, &gocql.RequestErrReadTimeout{Received: 2, BlockFor: 2}, gocql.Retry},
			{1, &gocql.RequestErrUnavailable{}, gocql.RetryNextHost},
		}},
		{"failures are returned", true, []step{
			{1, serverError(gocql.ErrCodeReadFailure), gocql.Rethrow},
			{1, serverError(gocql.ErrCodeWriteFailure), gocql.Rethrow},
			{1, serverError(gocql.ErrCodeInvalid), gocql.Rethrow},
		}},
		{"not idempotent: request errors are returned", false, []step{
			{1, gocql.ErrTimeoutNoResponse, gocql.Rethrow},
			{1, serverError(gocql.ErrCodeOverloaded), gocql.Rethrow},
			{1, serverError(gocql.ErrCodeBootstrapping), gocql.RetryNextHost},
			{3, serverError(gocql.ErrCodeBootstrapping), gocql.RetryNextHost},
		}},
	} {
		s := &Session{Config: Config{Retry: RetryOptions{Max: 1, Idempotent: c.idempotent}}, Counters: &Counters{}}
		r := s.StatementRetry()
		for i, st := range c.steps {
			if !r.Attempt(attempts{st.attempts, bg}) {
				t.Fatalf("%s, step %d: no attempt allowed", c.name, i)
			}
			if got := r.GetRetryType(st.err); got != st.want {
				t.Errorf("%s, step %d (%v after %d attempts): %v, want %v", c.name, i, st.err, st.attempts, got, st.want)
			}
		}
	}
	s := &Session{Config: Config{Retry: RetryOptions{Max: 0, Idempotent: true}}, Counters: &Counters{}}
	if s.StatementRetry().Attempt(attempts{1, bg}) {
		t.Error("retries 0: a statement was retried")
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
