// mcpcast browser client: subscribe to a broadcaster topic (DECL-6, MCP-6).
// No build step: load with <script src=".../mcpcast.js"></script>, then
//   const sub = mcpcast.subscribe("runs", { baseUrl: "/mcp/topics", onMessage: (data) => ... });
//   sub.close();
// WebSocket first, SSE (over fetch, so headers and heartbeats are visible) as the
// fallback; reconnects with exponential backoff and jitter, treats a silent connection
// as dead after a heartbeat timeout, and resumes after the last sequence number seen.
(function (root) {
  "use strict";

  /**
   * @typedef {Object} MessageFrame
   * @property {"message"} type
   * @property {string} topic
   * @property {number} seq
   * @property {*} data
   */

  /**
   * @typedef {"connecting"|"open"|"reconnecting"|"closed"} State
   */

  /**
   * @typedef {Object} SubscribeOptions
   * @property {string} [baseUrl] where the subscription app is mounted (default "/mcp/topics")
   * @property {(data: *, frame: MessageFrame) => void} onMessage called once per message, in order
   * @property {(state: State, detail: {transport: (string|null), reason?: string, attempt?: number, delay?: number}) => void} [onState]
   * @property {Array<"websocket"|"sse">} [transports] preference order (default ["websocket", "sse"])
   * @property {number} [afterSeq] resume after this sequence number on the first connection
   * @property {number} [heartbeatTimeout] ms of silence before reconnecting (default: 2.5x the server's heartbeat, else 45000)
   * @property {number} [minDelay] first reconnect delay in ms (default 500)
   * @property {number} [maxDelay] longest reconnect delay in ms (default 30000)
   * @property {Object<string, string>} [query] extra query parameters (e.g. a token for the authorize hook)
   * @property {Object<string, string>} [headers] extra request headers (SSE only: browsers cannot set them on WebSockets)
   */

  /** Reasons after which reconnecting is pointless. */
  var FATAL = { forbidden: true, "not found": true, "bad request": true };

  /**
   * A live subscription. Read `state`, `transport` and `lastSeq`; call `close()` to stop.
   * @param {string} topic
   * @param {SubscribeOptions} options
   * @constructor
   */
  function Subscription(topic, options) {
    if (!topic || typeof options.onMessage !== "function") {
      throw new TypeError("subscribe(topic, {onMessage}) needs a topic and an onMessage function");
    }
    this.topic = topic;
    this.options = options;
    /** @type {State} */
    this.state = "connecting";
    /** @type {string|null} */
    this.transport = null;
    /** @type {number|null} */
    this.lastSeq = typeof options.afterSeq === "number" ? options.afterSeq : null;
    this.reconnects = 0;
    this._order = (options.transports || ["websocket", "sse"]).filter(function (t) {
      return t !== "websocket" || typeof root.WebSocket === "function";
    });
    this._index = 0;
    this._attempt = 0;
    this._opened = false;
    this._worked = false;
    this._serverHeartbeat = null;
    this._timer = null;
    this._retry = null;
    this._stop = null; // closes the current connection
    this._connect();
  }

  Subscription.prototype._url = function (scheme) {
    var base = this.options.baseUrl || "/mcp/topics";
    var url = new URL(base.replace(/\/$/, "") + "/" + encodeURIComponent(this.topic), root.location.href);
    if (scheme === "websocket") url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    var query = this.options.query || {};
    Object.keys(query).forEach(function (k) { url.searchParams.set(k, query[k]); });
    if (this.lastSeq !== null) url.searchParams.set("after", String(this.lastSeq));
    return url.toString();
  };

  Subscription.prototype._setState = function (state, detail) {
    this.state = state;
    var extra = detail || {};
    extra.transport = this.transport;
    if (this.options.onState) this.options.onState(state, extra);
  };

  /** Any frame (or SSE comment) proves the connection alive: restart the watchdog. */
  Subscription.prototype._alive = function () {
    var self = this;
    if (this._timer) clearTimeout(this._timer);
    var timeout = this.options.heartbeatTimeout ||
      (this._serverHeartbeat ? this._serverHeartbeat * 2500 : 45000);
    this._timer = setTimeout(function () { self._lost("heartbeat timeout"); }, timeout);
  };

  /** Handle one JSON frame from either transport. */
  Subscription.prototype._frame = function (frame) {
    this._alive();
    if (frame.type === "subscribed") {
      this._serverHeartbeat = frame.heartbeat || null;
      if (this.lastSeq === null) this.lastSeq = frame.seq;
      this._attempt = 0;
      this._opened = true;
      this._worked = true;
      this._setState("open");
      this._alive();
    } else if (frame.type === "message") {
      if (this.lastSeq !== null && frame.seq <= this.lastSeq) return; // already seen
      this.lastSeq = frame.seq;
      this.options.onMessage(frame.data, frame);
    } else if (frame.type === "close") {
      this._lost(frame.reason || "closed by server");
    }
  };

  Subscription.prototype._connect = function () {
    if (this.state === "closed") return;
    this._opened = false;
    this.transport = this._order[this._index] || "sse";
    this._alive(); // an open that never completes counts as lost too
    if (this.transport === "websocket") this._openWebSocket();
    else this._openSse();
  };

  Subscription.prototype._openWebSocket = function () {
    var self = this;
    var ws = new root.WebSocket(this._url("websocket"));
    var done = false;
    this._stop = function () { done = true; try { ws.close(1000); } catch (e) { /* already closed */ } };
    ws.onmessage = function (event) {
      if (done) return;
      try { self._frame(JSON.parse(event.data)); } catch (e) { /* ignore a malformed frame */ }
    };
    ws.onclose = function (event) {
      if (done) return;
      done = true;
      self._lost(event.reason || "websocket closed (" + event.code + ")");
    };
  };

  Subscription.prototype._openSse = function () {
    var self = this;
    var controller = new AbortController();
    var done = false;
    this._stop = function () { done = true; controller.abort(); };
    var headers = Object.assign({ Accept: "text/event-stream" }, this.options.headers || {});
    root.fetch(this._url("sse"), { headers: headers, cache: "no-store", signal: controller.signal })
      .then(function (response) {
        if (!response.ok) {
          var reason = { 400: "bad request", 403: "forbidden", 404: "not found" }[response.status];
          throw new Error(reason || "HTTP " + response.status);
        }
        return self._readSse(response.body.getReader(), function () { return done; });
      })
      .then(function () { if (!done) { done = true; self._lost("stream ended"); } },
            function (err) { if (!done) { done = true; self._lost(err && err.message || "network error"); } });
  };

  /** Parse SSE from a byte stream: data lines are frames, comment lines are heartbeats. */
  Subscription.prototype._readSse = function (reader, isDone) {
    var self = this;
    var decoder = new TextDecoder();
    var buffer = "";
    var data = [];
    function line(text) {
      if (text === "") {
        if (data.length) {
          var payload = data.join("\n");
          data = [];
          try { self._frame(JSON.parse(payload)); } catch (e) { /* ignore a malformed frame */ }
        }
      } else if (text.charAt(0) === ":") {
        self._alive();
      } else if (text.indexOf("data:") === 0) {
        data.push(text.slice(5).replace(/^ /, ""));
      }
    }
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.done || isDone()) return;
        buffer += decoder.decode(chunk.value, { stream: true });
        var lines = buffer.split(/\r\n|\r|\n/);
        buffer = lines.pop();
        lines.forEach(line);
        return pump();
      });
    }
    return pump();
  };

  /** The connection ended or went silent: fall back if it never opened, then retry. */
  Subscription.prototype._lost = function (reason) {
    if (this.state === "closed") return;
    if (this._stop) { this._stop(); this._stop = null; }
    if (this._timer) { clearTimeout(this._timer); this._timer = null; }
    if (FATAL[reason] && this._index >= this._order.length - 1) {
      this._finish(reason);
      return;
    }
    if (!this._opened && !this._worked && this._index < this._order.length - 1) {
      // This transport has never got through (a proxy that drops WebSockets, say):
      // fall back at once. One that worked before is just retried with backoff.
      this._index += 1;
      this._setState("reconnecting", { reason: reason, attempt: 0, delay: 0 });
      this._connect();
      return;
    }
    var max = this.options.maxDelay || 30000;
    var base = Math.min(max, (this.options.minDelay || 500) * Math.pow(2, this._attempt));
    var delay = Math.round(base / 2 + Math.random() * base / 2); // jitter: no thundering herd
    this._attempt += 1;
    this.reconnects += 1;
    this._setState("reconnecting", { reason: reason, attempt: this._attempt, delay: delay });
    var self = this;
    this._retry = setTimeout(function () { self._retry = null; self._connect(); }, delay);
  };

  Subscription.prototype._finish = function (reason) {
    this._setState("closed", { reason: reason });
  };

  /** Stop for good. */
  Subscription.prototype.close = function () {
    if (this.state === "closed") return;
    if (this._stop) { this._stop(); this._stop = null; }
    if (this._timer) clearTimeout(this._timer);
    if (this._retry) clearTimeout(this._retry);
    this._finish("closed by client");
  };

  /**
   * Subscribe to a topic.
   * @param {string} topic
   * @param {SubscribeOptions} options
   * @returns {Subscription}
   */
  function subscribe(topic, options) {
    return new Subscription(topic, options);
  }

  root.mcpcast = { subscribe: subscribe, Subscription: Subscription };
})(typeof globalThis !== "undefined" ? globalThis : this);
