package aws

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// credentialsTimeout bounds the search for credentials. The SDK's chain
// ends with the EC2 instance metadata service, which off EC2 answers only
// by timing out, attempt after attempt: without a bound a machine with no
// credentials would wait long before hearing so. 4 s keeps the whole
// answer under 5 s and is ample for a local source (a file, the
// environment, a metadata service that exists).
const credentialsTimeout = 4 * time.Second

// identityTimeout and identityAttempts bound the STS call that checks
// credentials once found: a few quick attempts, not the SDK's patience.
const (
	identityTimeout  = 15 * time.Second
	identityAttempts = 2
)

// identity is who the credentials are.
type identity struct {
	account, arn string
}

// stsAPI is the STS call the check makes.
type stsAPI interface {
	GetCallerIdentity(ctx context.Context, in *sts.GetCallerIdentityInput, opts ...func(*sts.Options)) (*sts.GetCallerIdentityOutput, error)
}

// checkCredentials finds the configuration's credentials, within
// credentialsTimeout, and asks STS whose they are.
func checkCredentials(ctx context.Context, cfg aws.Config, client stsAPI, getenv func(string) string) (identity, error) {
	if cfg.Credentials == nil {
		return identity{}, noCredentials(getenv, fmt.Errorf("no credentials provider"))
	}
	rctx, cancel := context.WithTimeout(ctx, credentialsTimeout)
	_, err := cfg.Credentials.Retrieve(rctx)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return identity{}, ctx.Err()
		}
		return identity{}, noCredentials(getenv, err)
	}
	ictx, cancel := context.WithTimeout(ctx, identityTimeout)
	defer cancel()
	out, err := client.GetCallerIdentity(ictx, &sts.GetCallerIdentityInput{}, func(o *sts.Options) {
		o.RetryMaxAttempts = identityAttempts
	})
	if err != nil {
		if ctx.Err() != nil {
			return identity{}, ctx.Err()
		}
		return identity{}, fmt.Errorf("AWS credentials: STS GetCallerIdentity refused them: %w", err)
	}
	return identity{account: aws.ToString(out.Account), arn: aws.ToString(out.Arn)}, nil
}

// noCredentials is the error for a machine where no credentials were
// found: the sources tried and how to set one.
func noCredentials(getenv func(string) string, cause error) error {
	return fmt.Errorf("no AWS credentials found (tried %s): %v; set one: export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "+
		"(and AWS_SESSION_TOKEN for temporary keys), or run `aws configure`, or `aws configure sso` and `aws sso login`, "+
		"with AWS_PROFILE naming that profile", credentialSources(getenv), cause)
}

// credentialSources says which sources the SDK's default chain looked in,
// in its order (cloud.md §4.1), and what each held.
func credentialSources(getenv func(string) string) string {
	set := func(names ...string) string {
		var have []string
		for _, n := range names {
			if getenv(n) != "" {
				have = append(have, n)
			}
		}
		if len(have) == 0 {
			return "not set"
		}
		return strings.Join(have, ", ") + " set"
	}
	profile := getenv("AWS_PROFILE")
	if profile == "" {
		profile = "default"
	}
	credFile := getenv("AWS_SHARED_CREDENTIALS_FILE")
	if credFile == "" {
		credFile = config.DefaultSharedCredentialsFilename()
	}
	confFile := getenv("AWS_CONFIG_FILE")
	if confFile == "" {
		confFile = config.DefaultSharedConfigFilename()
	}
	imds := "the EC2 instance metadata service"
	if strings.EqualFold(getenv("AWS_EC2_METADATA_DISABLED"), "true") {
		imds += " (disabled by AWS_EC2_METADATA_DISABLED)"
	}
	return strings.Join([]string{
		"the environment's AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (" + set("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY") + ")",
		"web identity (" + set("AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN") + ")",
		fmt.Sprintf("profile %q in %s and %s (static keys, SSO, credential_process, an assumed role)", profile, credFile, confFile),
		"container credentials (" + set("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI") + ")",
		imds,
	}, "; ")
}
