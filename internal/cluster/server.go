package cluster

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Server is a NATS server with JetStream, run inside this process: for
// tests and for a cluster on one machine (`freshcrawl cluster`). In
// production the nodes connect to a nats-server cluster instead; nothing
// else differs.
type Server struct {
	ns *server.Server
}

// ServerConfig configures an embedded server. Zero values: loopback, a
// port the system picks.
type ServerConfig struct {
	Dir  string // JetStream's storage directory; required
	Host string // listen address, default 127.0.0.1
	Port int    // listen port, default 0: any free one
}

// StartServer starts an embedded NATS server with JetStream and waits
// until it accepts connections.
func StartServer(cfg ServerConfig) (*Server, error) {
	if cfg.Dir == "" {
		return nil, errors.New("cluster: embedded NATS server needs a storage directory")
	}
	host, port := cfg.Host, cfg.Port
	if host == "" {
		host = "127.0.0.1"
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	ns, err := server.NewServer(&server.Options{
		ServerName: "freshcrawl",
		Host:       host,
		Port:       port,
		JetStream:  true,
		StoreDir:   cfg.Dir,
		NoLog:      true,
		NoSigs:     true,
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: NATS server: %w", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, errors.New("cluster: NATS server did not start within 10 s")
	}
	return &Server{ns: ns}, nil
}

// URL returns the address clients connect to (nats://host:port).
func (s *Server) URL() string { return s.ns.ClientURL() }

// Close shuts the server down and waits for it.
func (s *Server) Close() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}
