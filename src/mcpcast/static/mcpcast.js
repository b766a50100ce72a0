// mcpcast browser client: subscribe to a broadcaster topic (DECL-6, MCP-6).
// No build step: load with <script src=".../mcpcast.js"></script>, then
//   const sub = mcpcast.subscribe("runs", { baseUrl: "/mcp/topics", onMessage: (data) => ... });
//   sub.close();
// WebSocket first, SSE (read with fetch, so headers and heartbeat comments are visible)
// as the fallback; reconnects with exponential backoff and jitter, treats a silent
// connection as dead after a heartbeat timeout, and resumes after the last seq seen.
// Types are JSDoc, checked with `tsc --allowJs --checkJs --strict --noEmit`.
// @ts-check
(function (root) {
  "use strict";

  /**
   * @typedef {Object} MessageFrame
   * @property {"message"} type
   * @property {string} topic
   * @property {number} seq  increases by one per broadcast on the topic
   * @property {*} data      what the server broadcast (a string or an object)
   */

  /**
   * @typedef {Object} ServerFrame
   * @property {string} type  "subscribed" | "message" | "heartbeat" | "close"
   * @property {number} [seq]
   * @property {*} [data]
   * @property {number|null} [heartbeat]  server heartbeat interval in seconds
   * @property {string} [reason]
   */

  /** @typedef {"connecting"|"open"|"reconnecting"|"closed"} State */
  /** @typedef {"websocket"|"sse"} Transport */

  /**
   * @typedef {Object} StateDetail
   * @property {Transport|null} transport
   * @property {string} [reason]
   * @property {number} [attempt]
   * @property {number} [delay]  ms until the next attempt
   */

  /**
   * @typedef {Object} SubscribeOptions
   * @property {(data: *, frame: MessageFrame) => void} onMessage  called once per message, in order
   * @property {string} [baseUrl]  where the subscription app is mounted (default "/mcp/topics")
   * @property {(state: State, detail: StateDetail) => void} [onState]
   * @property {Transport[]} [transports]  preference order (default ["websocket", "sse"])
   * @property {number} [afterSeq]  resume after this seq on the first connection
   * @property {number} [heartbeatTimeout]  ms of silence before reconnecting
   *   (default: 2.5x the server's heartbeat, else 45000)
   * @property {number} [minDelay]  first reconnect delay in ms (default 500)
   * @property {number} [maxDelay]  longest reconnect delay in ms (default 30000)
   * @property {Record<string, string>} [query]  extra query parameters (e.g. a token)
   * @property {Record<string, string>} [headers]  extra request headers (SSE only:
   *   browsers cannot set headers on a WebSocket)
   * @property {string|(() => string)} [token]  bearer token, read again at each connect:
   *   SSE sends it as `Authorization: Bearer`, WebSocket as the subprotocol
   *   `bearer.<token>` (kept out of URLs and access logs; must be URL-safe, like a JWT)
   */

  /** Refusals after which reconnecting is pointless. @type {Record<string, boolean>} */
  const FATAL = { forbidden: true, "not found": true, "bad request": true };
  /** @type {Record<number, string>} */
  const HTTP_REASONS = { 400: "bad request", 403: "forbidden", 404: "not found" };

  /** A live subscription: read `state`, `transport`, `lastSeq`; `close()` to stop. */
  class Subscription {
    /**
     * @param {string} topic
     * @param {SubscribeOptions} options
     */
    constructor(topic, options) {
      if (!topic || !options || typeof options.onMessage !== "function") {
        throw new TypeError("subscribe(topic, {onMessage}) needs a topic and an onMessage function");
      }
      this.topic = topic;
      this.options = options;
      /** @type {State} */
      this.state = "connecting";
      /** @type {Transport|null} */
      this.transport = null;
      /** @type {number|null} */
      this.lastSeq = typeof options.afterSeq === "number" ? options.afterSeq : null;
      /** Reconnects after a connection was lost (fallbacks not counted). */
      this.reconnects = 0;
      /** @type {Transport[]} */
      this._order = (options.transports || ["websocket", "sse"]).filter(
        (t) => t !== "websocket" || typeof root.WebSocket === "function"
      );
      this._index = 0;
      this._attempt = 0;
      this._opened = false; // the current connection got its "subscribed" frame
      this._worked = false; // some connection did: no more fallback, only retries
      /** @type {number|null} */
      this._serverHeartbeat = null;
      /** @type {ReturnType<typeof setTimeout>|null} */
      this._watchdog = null;
      /** @type {ReturnType<typeof setTimeout>|null} */
      this._retry = null;
      /** @type {(() => void)|null} closes the current connection */
      this._stop = null;
      this._connect();
    }

    /**
     * @param {Transport} transport
     * @returns {string}
     */
    _url(transport) {
      const base = (this.options.baseUrl || "/mcp/topics").replace(/\/$/, "");
      const url = new URL(base + "/" + encodeURIComponent(this.topic), root.location.href);
      if (transport === "websocket") url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
      const query = this.options.query || {};
      for (const key of Object.keys(query)) url.searchParams.set(key, query[key]);
      if (this.lastSeq !== null) url.searchParams.set("after", String(this.lastSeq));
      return url.toString();
    }

    /**
     * @param {State} state
     * @param {{reason?: string, attempt?: number, delay?: number}} [extra]
     */
    _setState(state, extra) {
      this.state = state;
      if (this.options.onState) {
        this.options.onState(state, Object.assign({ transport: this.transport }, extra || {}));
      }
    }

    /** Any frame (or SSE comment) proves the connection alive: restart the watchdog. */
    _alive() {
      if (this._watchdog) clearTimeout(this._watchdog);
      const timeout =
        this.options.heartbeatTimeout ||
        (this._serverHeartbeat ? this._serverHeartbeat * 2500 : 45000);
      this._watchdog = setTimeout(() => this._lost("heartbeat timeout"), timeout);
    }

    /** @param {ServerFrame} frame  one JSON frame from either transport */
    _frame(frame) {
      this._alive();
      if (frame.type === "subscribed") {
        this._serverHeartbeat = frame.heartbeat || null;
        // The server's resume point: our last seq, or lower if the topic's count was
        // lost (server restarted without shared history), so new numbers are not dropped.
        if (typeof frame.seq === "number") this.lastSeq = frame.seq;
        this._attempt = 0;
        this._opened = true;
        this._worked = true;
        this._setState("open");
        this._alive(); // now with the server's heartbeat interval
      } else if (frame.type === "message" && typeof frame.seq === "number") {
        if (this.lastSeq !== null && frame.seq <= this.lastSeq) return; // seen already
        this.lastSeq = frame.seq;
        this.options.onMessage(frame.data, /** @type {MessageFrame} */ (frame));
      } else if (frame.type === "close") {
        this._lost(frame.reason || "closed by server");
      }
    }

    /** @param {string} text */
    _parse(text) {
      /** @type {ServerFrame|null} */
      let frame = null;
      try {
        frame = JSON.parse(text);
      } catch (e) {
        return; // not JSON: ignore the frame, keep the connection
      }
      if (frame && typeof frame.type === "string") this._frame(frame);
    }

    _connect() {
      if (this.state === "closed") return;
      this._opened = false;
      this.transport = this._order[this._index] || "sse";
      this._alive(); // an open that never completes is lost too
      if (this.transport === "websocket") this._openWebSocket();
      else this._openSse();
    }

    /** @returns {string|null} */
    _token() {
      const token = this.options.token;
      return (typeof token === "function" ? token() : token) || null;
    }

    _openWebSocket() {
      const token = this._token();
      /** @type {WebSocket} */
      let ws;
      try {
        ws = new root.WebSocket(
          this._url("websocket"),
          token ? ["mcpcast", "bearer." + token] : ["mcpcast"]
        );
      } catch (e) {
        this._lost("websocket unavailable"); // e.g. a token that is not a valid subprotocol
        return;
      }
      let done = false;
      this._stop = () => {
        done = true;
        try {
          ws.close(1000);
        } catch (e) {
          /* already closed */
        }
      };
      ws.onmessage = (event) => {
        if (!done && typeof event.data === "string") this._parse(event.data);
      };
      ws.onclose = (event) => {
        if (done) return;
        done = true;
        this._lost(event.reason || "websocket closed (" + event.code + ")");
      };
    }

    _openSse() {
      const controller = new AbortController();
      let done = false;
      this._stop = () => {
        done = true;
        controller.abort();
      };
      /** @type {Record<string, string>} */
      const headers = Object.assign({ Accept: "text/event-stream" }, this.options.headers || {});
      const token = this._token();
      if (token) headers.Authorization = "Bearer " + token;
      root
        .fetch(this._url("sse"), { headers, cache: "no-store", signal: controller.signal })
        .then((response) => {
          if (!response.ok || !response.body) {
            throw new Error(HTTP_REASONS[response.status] || "HTTP " + response.status);
          }
          return this._readSse(response.body.getReader(), () => done);
        })
        .then(
          () => {
            if (!done) {
              done = true;
              this._lost("stream ended");
            }
          },
          (err) => {
            if (!done) {
              done = true;
              this._lost((err && err.message) || "network error");
            }
          }
        );
    }

    /**
     * Parse SSE: data lines carry frames, comment lines are heartbeats.
     * @param {ReadableStreamDefaultReader<Uint8Array>} reader
     * @param {() => boolean} isDone
     * @returns {Promise<void>}
     */
    async _readSse(reader, isDone) {
      const decoder = new TextDecoder();
      let buffer = "";
      /** @type {string[]} */
      let data = [];
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done || isDone()) return;
        buffer += decoder.decode(chunk.value, { stream: true });
        const lines = buffer.split(/\r\n|\r|\n/);
        buffer = lines.pop() || "";
        for (const line of lines) {
          if (line === "") {
            if (data.length) this._parse(data.join("\n"));
            data = [];
          } else if (line.charAt(0) === ":") {
            this._alive();
          } else if (line.startsWith("data:")) {
            data.push(line.slice(5).replace(/^ /, ""));
          }
        }
      }
    }

    /**
     * The connection ended or went silent: fall back if this transport never got
     * through, else retry with exponential backoff and jitter.
     * @param {string} reason
     */
    _lost(reason) {
      if (this.state === "closed") return;
      if (this._stop) {
        this._stop();
        this._stop = null;
      }
      if (this._watchdog) {
        clearTimeout(this._watchdog);
        this._watchdog = null;
      }
      const last = this._order.length - 1;
      if (FATAL[reason] && this._index >= last) {
        this._setState("closed", { reason });
        return;
      }
      if (!this._opened && !this._worked && this._index < last) {
        this._index += 1; // e.g. a proxy that drops WebSockets: fall back at once
        this._setState("reconnecting", { reason, attempt: 0, delay: 0 });
        this._connect();
        return;
      }
      const max = this.options.maxDelay || 30000;
      const base = Math.min(max, (this.options.minDelay || 500) * Math.pow(2, this._attempt));
      const delay = Math.round(base / 2 + (Math.random() * base) / 2); // jitter: no herd
      this._attempt += 1;
      this.reconnects += 1;
      this._setState("reconnecting", { reason, attempt: this._attempt, delay });
      this._retry = setTimeout(() => {
        this._retry = null;
        this._connect();
      }, delay);
    }

    /** Stop for good. */
    close() {
      if (this.state === "closed") return;
      if (this._stop) {
        this._stop();
        this._stop = null;
      }
      if (this._watchdog) clearTimeout(this._watchdog);
      if (this._retry) clearTimeout(this._retry);
      this._setState("closed", { reason: "closed by client" });
    }
  }

  /**
   * Subscribe to a topic.
   * @param {string} topic
   * @param {SubscribeOptions} options
   * @returns {Subscription}
   */
  function subscribe(topic, options) {
    return new Subscription(topic, options);
  }

  /** @type {*} */ (root).mcpcast = { subscribe, Subscription };
})(globalThis);
