package gcp

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"google.golang.org/api/googleapi"
)

// apiError is the Compute API's answer when it is an error: the REST
// clients return a *googleapi.Error, whose Errors[].Reason names the
// problem (quotaExceeded, notFound, accessNotConfigured, …; the
// apierror.APIError's Reason() is empty for this format, cloud.md §9).
func apiError(err error) (*googleapi.Error, bool) {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge, true
	}
	return nil, false
}

// isNotFound reports whether err is the API's 404.
func isNotFound(err error) bool {
	ge, ok := apiError(err)
	return ok && ge.Code == http.StatusNotFound
}

// reasons lists the reasons an API error gives, comma-separated ("" for
// none or for an error that is not the API's).
func reasons(err error) string {
	ge, ok := apiError(err)
	if !ok {
		return ""
	}
	var rs []string
	for _, e := range ge.Errors {
		if e.Reason != "" {
			rs = append(rs, e.Reason)
		}
	}
	return strings.Join(rs, ",")
}

// hasReason reports whether an API error gives reason r.
func hasReason(err error, r string) bool {
	ge, ok := apiError(err)
	if !ok {
		return false
	}
	for _, e := range ge.Errors {
		if e.Reason == r {
			return true
		}
	}
	return false
}

// describeAPIError is an API error in one line: HTTP status, reasons and
// the API's message, without the SDK's repetition of them.
func describeAPIError(err error) string {
	ge, ok := apiError(err)
	if !ok {
		return err.Error()
	}
	msg := ge.Message
	if msg == "" && len(ge.Errors) > 0 {
		msg = ge.Errors[0].Message
	}
	s := fmt.Sprintf("HTTP %d", ge.Code)
	if r := reasons(err); r != "" {
		s += " " + r
	}
	if msg != "" {
		s += ": " + msg
	}
	return s
}

// callError is a failed API call: what was asked, and the API's answer in
// one line (describeAPIError), still unwrappable to the *googleapi.Error.
type callError struct {
	what string
	err  error
}

func (e *callError) Error() string { return e.what + ": " + describeAPIError(e.err) }

// Unwrap returns the API's error.
func (e *callError) Unwrap() error { return e.err }
