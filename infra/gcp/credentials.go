package gcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"
	"google.golang.org/api/option"

	"github.com/ybbench/ybbench/internal/exitcode"
)

// EnvCredentials is the variable Application Default Credentials read
// first: a credentials file's path.
const EnvCredentials = "GOOGLE_APPLICATION_CREDENTIALS"

// computeScope is the OAuth scope the clients ask for.
const computeScope = "https://www.googleapis.com/auth/cloud-platform"

// credentialsWait bounds the search for credentials: off Google Cloud the
// metadata server's probe gives up within about 2 seconds, and a check
// that cannot find credentials must say so at once.
const credentialsWait = 5 * time.Second

// credentialsHint says how to give ybbench credentials.
const credentialsHint = "set them with `gcloud auth application-default login`, or " + EnvCredentials +
	"=<a service account's key file>; the account needs the Compute Engine Admin role (roles/compute.admin) in the project"

// adcSources lists where Application Default Credentials are looked for,
// in order (cloud.md §5, P6), as this machine has them.
func adcSources() []string {
	env := EnvCredentials + " (not set)"
	if v := os.Getenv(EnvCredentials); v != "" {
		env = EnvCredentials + "=" + v
	}
	home, _ := os.UserHomeDir()
	return []string{
		env,
		filepath.Join(home, ".config", "gcloud", "application_default_credentials.json") + " (gcloud's)",
		"the metadata server (on Google Cloud only)",
	}
}

// CredentialsError is Application Default Credentials not found or not
// usable: the sources tried and how to set one.
type CredentialsError struct {
	Sources []string
	Err     error
}

func (e *CredentialsError) Error() string {
	return fmt.Sprintf("no usable Google credentials (%v); looked in: %s; %s",
		e.Err, strings.Join(e.Sources, ", "), credentialsHint)
}

// Unwrap returns the search's own error.
func (e *CredentialsError) Unwrap() error { return e.Err }

// detectCredentials finds Application Default Credentials, giving up
// after credentialsWait.
func detectCredentials(ctx context.Context) (*auth.Credentials, error) {
	type result struct {
		creds *auth.Credentials
		err   error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := credentials.DetectDefault(&credentials.DetectOptions{Scopes: []string{computeScope}})
		ch <- result{c, err}
	}()
	ctx, cancel := context.WithTimeout(ctx, credentialsWait)
	defer cancel()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, exitcode.Wrap(exitcode.Config, &CredentialsError{Sources: adcSources(), Err: r.err})
		}
		return r.creds, nil
	case <-ctx.Done():
		if ctx.Err() == context.DeadlineExceeded {
			return nil, exitcode.Wrap(exitcode.Config, &CredentialsError{Sources: adcSources(),
				Err: fmt.Errorf("no answer within %v", credentialsWait)})
		}
		return nil, ctx.Err()
	}
}

// clientOptions returns the Compute clients' options: the provider's own
// (tests), else Application Default Credentials, looked for once.
func (p *Provider) clientOptions(ctx context.Context) ([]option.ClientOption, error) {
	if p.clientOpts != nil {
		return p.clientOpts, nil
	}
	creds, err := detectCredentials(ctx)
	if err != nil {
		return nil, err
	}
	return []option.ClientOption{option.WithAuthCredentials(creds)}, nil
}

// connect makes the Compute clients with clientOptions.
func (p *Provider) connect(ctx context.Context) (*clients, error) {
	opts, err := p.clientOptions(ctx)
	if err != nil {
		return nil, err
	}
	return newClients(ctx, opts...)
}
