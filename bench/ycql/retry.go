package ycql

import (
	"context"
	"errors"
	"net"
	"sync/atomic"

	"github.com/gocql/gocql"
)

// RetryPolicy retries what the reference Java driver's DefaultRetryPolicy
// retries, as its RequestHandler applies it, and counts each retry by cause:
//
//   - a server read timeout, on the same host, when enough replicas answered
//     but the data did not come back;
//   - for idempotent statements, a server write timeout of a batch log
//     write, on the same host;
//   - an unavailable error, on the next host;
//   - for idempotent statements, a request error — a connection error, a
//     client-side timeout, an overloaded or server error — on the next
//     host, again after each failure, until the query plan runs out;
//   - a bootstrapping host, on the next host.
//
// The first three are retried only while the statement has had fewer than
// Max retries (the reference: only as its first retry, Max 1); Max 0 turns
// every retry off. Everything else is returned at once.
//
// The count of retries so far is the statement's own: a policy from
// Session.StatementRetry serves one statement at a time (a worker's) and
// keeps it between gocql's Attempt and GetRetryType calls. The session's
// shared default, which cannot, retries anything at most Max times.
type RetryPolicy struct {
	Max        int
	Idempotent bool
	c          *Counters

	own bool // one statement at a time: retries is that statement's
	// retries of the statement in hand so far; atomic, as a page gocql
	// prefetches may be retried on its own goroutine
	retries atomic.Int64
}

var _ gocql.RetryPolicy = (*RetryPolicy)(nil)

// Attempt allows a retry of q unless its context is done or retries are
// off; GetRetryType then decides by the error.
func (r *RetryPolicy) Attempt(q gocql.RetryableQuery) bool {
	if q.Context().Err() != nil || r.Max <= 0 {
		return false
	}
	if !r.own {
		return q.Attempts() <= r.Max
	}
	r.retries.Store(int64(q.Attempts() - 1))
	return true
}

// GetRetryType decides how err is retried, and counts the retry.
func (r *RetryPolicy) GetRetryType(err error) gocql.RetryType {
	var rt *gocql.RequestErrReadTimeout
	var wt *gocql.RequestErrWriteTimeout
	var un *gocql.RequestErrUnavailable
	var re gocql.RequestError
	first := !r.own || r.retries.Load() < int64(r.Max)
	switch {
	case errors.As(err, &rt):
		if first && rt.Received >= rt.BlockFor && rt.DataPresent == 0 {
			r.c.RetriesReadTimeout.Add(1)
			return gocql.Retry
		}
	case errors.As(err, &wt):
		if first && r.Idempotent && wt.WriteType == "BATCH_LOG" {
			r.c.RetriesWriteTimeout.Add(1)
			return gocql.Retry
		}
	case errors.As(err, &un):
		if first {
			r.c.RetriesUnavailable.Add(1)
			return gocql.RetryNextHost
		}
	case errors.As(err, &re):
		switch re.Code() {
		case gocql.ErrCodeBootstrapping:
			r.c.RetriesRequest.Add(1)
			return gocql.RetryNextHost
		case gocql.ErrCodeOverloaded, gocql.ErrCodeServer:
			if r.Idempotent {
				r.c.RetriesRequest.Add(1)
				return gocql.RetryNextHost
			}
		}
	case r.Idempotent && isConnectionError(err):
		r.c.RetriesConnection.Add(1)
		return gocql.RetryNextHost
	}
	return gocql.Rethrow
}

// isConnectionError reports a failure of the connection or the client's own
// timeout, as opposed to an error the server returned.
func isConnectionError(err error) bool {
	var ne net.Error
	var re gocql.RequestError
	switch {
	case errors.As(err, &re):
		return false
	case errors.Is(err, gocql.ErrTimeoutNoResponse), errors.Is(err, gocql.ErrConnectionClosed),
		errors.Is(err, gocql.ErrNoConnections), errors.As(err, &ne):
		return true
	}
	return false
}

// Counters are a session's own counts, beside the workloads' histograms:
// retries by cause, connections made and refused, and hosts going up and
// down. Statement-level counters are updated only on failures, never on
// the success path.
type Counters struct {
	RetriesReadTimeout, RetriesWriteTimeout, RetriesUnavailable, RetriesConnection atomic.Int64
	// RetriesRequest counts retries after an overloaded, server or
	// bootstrapping error.
	RetriesRequest            atomic.Int64
	Connects, ConnectFailures atomic.Int64
}

// ObserveConnect counts connection attempts (gocql.ConnectObserver).
func (c *Counters) ObserveConnect(o gocql.ObservedConnect) {
	if o.Err != nil {
		c.ConnectFailures.Add(1)
	} else {
		c.Connects.Add(1)
	}
}

// ErrorKind classifies a statement's error for the results.
type ErrorKind uint8

// The error kinds.
const (
	KindOK ErrorKind = iota
	// KindTimeout is a client-side timeout or a server read/write timeout.
	KindTimeout
	// KindUnavailable is the server's unavailable error, or no host to send to.
	KindUnavailable
	// KindConnection is a broken or refused connection.
	KindConnection
	// KindCancelled is the run's own cut-off of an operation in flight.
	KindCancelled
	// KindOther is any other error (invalid statement, overload, …).
	KindOther
)

// Classify returns err's kind.
func Classify(err error) ErrorKind {
	var rt *gocql.RequestErrReadTimeout
	var wt *gocql.RequestErrWriteTimeout
	var un *gocql.RequestErrUnavailable
	switch {
	case err == nil:
		return KindOK
	case errors.Is(err, context.Canceled):
		return KindCancelled
	case errors.Is(err, gocql.ErrTimeoutNoResponse), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &rt), errors.As(err, &wt):
		return KindTimeout
	case errors.As(err, &un), errors.Is(err, gocql.ErrNoConnections), errors.Is(err, gocql.ErrUnavailable):
		return KindUnavailable
	case isConnectionError(err):
		return KindConnection
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return KindTimeout
	}
	return KindOther
}

// String names the kind.
func (k ErrorKind) String() string {
	return [...]string{"ok", "timeout", "unavailable", "connection", "cancelled", "other"}[k]
}
