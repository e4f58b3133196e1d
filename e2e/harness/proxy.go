package harness

import (
	"io"
	"net"
	"sync"
)

// proxy forwards TCP connections from one stable loopback address to the
// kube-apiserver of the moment. kube-apiserver's test server listens on a
// fresh port each time it starts; clients made before a restart keep
// working through the proxy, as clients of a real cluster keep their
// server's address across its restarts. TLS passes through untouched.
type proxy struct {
	ln net.Listener

	mu      sync.Mutex
	backend string // host:port of the running kube-apiserver; "" while it is down
	conns   map[net.Conn]struct{}
	wg      sync.WaitGroup
}

func newProxy() (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &proxy{ln: ln, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

// setBackend points new connections at addr and cuts every open one, as the
// old server's end would be cut when it stops. An empty addr refuses new
// connections until the next setBackend.
func (p *proxy) setBackend(addr string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.backend = addr
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

func (p *proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // the listener was closed
		}
		p.mu.Lock()
		backend := p.backend
		p.mu.Unlock()
		if backend == "" {
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", backend)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.backend != backend { // restarted while dialling
			p.mu.Unlock()
			c.Close()
			up.Close()
			continue
		}
		p.conns[c], p.conns[up] = struct{}{}, struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(c, up)
		go p.pipe(up, c)
	}
}

func (p *proxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	io.Copy(dst, src)
	// One direction ended: end both, so neither side waits on a half-open link.
	dst.Close()
	src.Close()
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
}

func (p *proxy) close() {
	p.ln.Close()
	p.setBackend("")
	p.wg.Wait()
}
