package livemetrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ybbench/ybbench/bench"
)

// Server serves one agent's metrics at /metrics until Close. A nil
// *Server is metrics off: its methods do nothing, so a mode holds one
// whether or not its command line asked.
type Server struct {
	ln     net.Listener
	srv    *http.Server
	sink   *Sink
	served chan struct{}
}

// Path is where the metrics are served.
const Path = "/metrics"

// closeWait is how long Close lets a scrape in flight finish.
const closeWait = time.Second

// Serve listens on addr (as ParseAddr gives it) and serves in the
// background. Listening here, before the run connects to anything, lets a
// port in use fail the command at once. The registry is the server's own:
// the run's figures, and the Go runtime's and the process's (its CPU).
func Serve(ctx context.Context, addr string) (*Server, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, listenError(addr, err)
	}
	c := newCollector()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle(Path, promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	s := &Server{ln: ln, sink: &Sink{c: c}, served: make(chan struct{}),
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	go func() {
		defer close(s.served)
		// Serve returns ErrServerClosed after Close; nothing else ends it
		// but a broken listener, after which a scrape fails, loudly enough.
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// Addr is the address the server listens on, its port chosen when the
// given one was 0; "" when off.
func (s *Server) Addr() string {
	if s == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Sink is what feeds the server from the engine: the run's config takes
// it among its sinks. Nil when off.
func (s *Server) Sink() bench.Sink {
	if s == nil {
		return nil
	}
	return s.sink
}

// Close stops serving, letting a scrape in flight finish (within a
// second), and returns once the server is gone: the agent closes it as it
// exits.
func (s *Server) Close() error {
	if s == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	<-s.served
	return err
}
