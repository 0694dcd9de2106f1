'use strict'
// Serves a recorded Bolt conversation to every client that connects, for benches/node/e2e.js
// --replay: the client's side of a read measured without a server on the same cores.
//
//   node benches/node/replay-server.js RECORDING
//
// RECORDING: the conversation as e2e.js writes it, a sequence of segments, each a byte
// (0: sent by the client, 1: by the server), a 32-bit big-endian length and the bytes.
// Each server segment is sent once the client has sent as many bytes as it had sent
// before it in the recording (what the client sends is counted, not checked). Prints
// the port it listens on (127.0.0.1, chosen by the system), then serves until killed.

const net = require('net')
const fs = require('fs')

const raw = fs.readFileSync(process.argv[2])
const segments = []
for (let at = 0; at < raw.length;) {
  const len = raw.readUInt32BE(at + 1)
  segments.push({ client: raw[at] === 0, bytes: raw.subarray(at + 5, at + 5 + len) })
  at += 5 + len
}

const server = net.createServer((sock) => {
  sock.setNoDelay(true)
  let received = 0 // bytes the client sent
  let due = 0 // bytes the client must have sent before the next server segment
  let next = 0
  const pump = () => {
    while (next < segments.length) {
      const s = segments[next]
      if (s.client) {
        if (received < due + s.bytes.length) return
        due += s.bytes.length
      } else {
        sock.write(s.bytes)
      }
      next++
    }
  }
  sock.on('data', (b) => {
    received += b.length
    pump()
  })
  sock.on('error', () => {})
})
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
