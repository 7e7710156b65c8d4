package aws

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestCredentialSources(t *testing.T) {
	got := credentialSources(envOf(map[string]string{
		"AWS_ACCESS_KEY_ID": "AKIA…", "AWS_PROFILE": "bench",
		"AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/credentials", "AWS_CONFIG_FILE": "/nonexistent/config",
		"AWS_EC2_METADATA_DISABLED": "true",
	}))
	want := "the environment's AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (AWS_ACCESS_KEY_ID set); " +
		"web identity (not set); " +
		`profile "bench" in /nonexistent/credentials and /nonexistent/config (static keys, SSO, credential_process, an assumed role); ` +
		"container credentials (not set); " +
		"the EC2 instance metadata service (disabled by AWS_EC2_METADATA_DISABLED)"
	if got != want {
		t.Errorf("sources:\n got %s\nwant %s", got, want)
	}
	if got := credentialSources(envOf(nil)); !strings.Contains(got, `profile "default" in `) || strings.Contains(got, "disabled") {
		t.Errorf("sources with nothing set: %s", got)
	}
}

// failingCredentials finds no credentials.
type failingCredentials struct{}

func (failingCredentials) Retrieve(context.Context) (aws.Credentials, error) {
	return aws.Credentials{}, errors.New("no EC2 IMDS role found")
}

// staticCredentials always has some.
type staticCredentials struct{}

func (staticCredentials) Retrieve(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: "AKIA", SecretAccessKey: "s", Source: "test"}, nil
}

// fakeSTS answers GetCallerIdentity with an identity or an error, and
// counts the calls.
type fakeSTS struct {
	err   error
	calls int
}

func (f *fakeSTS) GetCallerIdentity(context.Context, *sts.GetCallerIdentityInput, ...func(*sts.Options)) (*sts.GetCallerIdentityOutput, error) {
	f.calls++
	if f.err != nil {
		return nil, f.err
	}
	return &sts.GetCallerIdentityOutput{Account: aws.String("123456789012"), Arn: aws.String("arn:aws:iam::123456789012:user/bench")}, nil
}

func TestCheckCredentials(t *testing.T) {
	ctx := context.Background()
	env := envOf(nil)

	s := &fakeSTS{}
	_, err := checkCredentials(ctx, aws.Config{Credentials: failingCredentials{}}, s, env)
	if err == nil || !strings.HasPrefix(err.Error(), "no AWS credentials found (tried the environment's AWS_ACCESS_KEY_ID") ||
		!strings.Contains(err.Error(), "no EC2 IMDS role found; set one: export AWS_ACCESS_KEY_ID") || s.calls != 0 {
		t.Errorf("no credentials: %v (STS called %d times)", err, s.calls)
	}

	id, err := checkCredentials(ctx, aws.Config{Credentials: staticCredentials{}}, &fakeSTS{}, env)
	if err != nil || id.account != "123456789012" || id.arn != "arn:aws:iam::123456789012:user/bench" {
		t.Errorf("identity: %+v %v", id, err)
	}

	_, err = checkCredentials(ctx, aws.Config{Credentials: staticCredentials{}}, &fakeSTS{err: errors.New("InvalidClientTokenId")}, env)
	if err == nil || !strings.Contains(err.Error(), "STS GetCallerIdentity refused them: InvalidClientTokenId") {
		t.Errorf("refused credentials: %v", err)
	}
}
