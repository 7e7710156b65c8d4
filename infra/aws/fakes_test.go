package aws

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/ybbench/ybbench/infra/terraform/tftest"
)

// staticConfig is a ConfigFunc for an endpoint that takes any
// credentials (moto, or fakeEC2 below).
func staticConfig(url string) ConfigFunc {
	return func(ctx context.Context, region string) (aws.Config, error) {
		return config.LoadDefaultConfig(ctx, config.WithRegion(region), config.WithBaseEndpoint(url),
			config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("testing", "testing", "")))
	}
}

// fakeEC2 is an EC2 endpoint that answers every call with an empty
// result (no resources) and records the actions asked for.
type fakeEC2 struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []string
}

func newFakeEC2(t *testing.T) *fakeEC2 {
	f := &fakeEC2{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		action := r.Form.Get("Action")
		f.mu.Lock()
		f.got = append(f.got, action)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "text/xml")
		fmt.Fprintf(w, `<%sResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>fake</requestId></%sResponse>`, action, action)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeEC2) actions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.got...)
}

// newFakeTerraform is a fake terraform (tftest) whose hosts output is
// fakeHostsOutput.
func newFakeTerraform(t *testing.T) *tftest.Fake {
	t.Helper()
	f := tftest.New(t)
	f.SetOutput(t, fakeHostsOutput)
	return f
}

// fakeHostsOutput is what terraform/aws's hosts output looks like for
// the c5 setup.
const fakeHostsOutput = `{
  "hosts": {
    "sensitive": false,
    "type": ["list", ["object", {"name": "string"}]],
    "value": [
      {"name": "db-1", "role": "db", "public_ip": "198.51.100.11", "private_ip": "10.42.1.11", "zone": "us-west-2a", "provider_id": "i-0000000000000000a", "instance_type": "c5.4xlarge"},
      {"name": "db-2", "role": "db", "public_ip": "198.51.100.12", "private_ip": "10.42.1.12", "zone": "us-west-2a", "provider_id": "i-0000000000000000b", "instance_type": "c5.4xlarge"},
      {"name": "db-3", "role": "db", "public_ip": "198.51.100.13", "private_ip": "10.42.1.13", "zone": "us-west-2a", "provider_id": "i-0000000000000000c", "instance_type": "c5.4xlarge"},
      {"name": "client-1", "role": "client", "public_ip": "198.51.100.14", "private_ip": "10.42.1.14", "zone": "us-west-2a", "provider_id": "i-0000000000000000d", "instance_type": "c5.4xlarge"}
    ]
  }
}`
