// The script /embed.js serves: plain browser JavaScript, no framework and none of the console's
// bundle. It defines <atrium-chat portal="<id or slug>" token="<jwt>" [app="<app id>"]
// [mode="inline"]>: a launcher button (or, inline, the panel itself) holding an iframe of the
// embed frame page (/embed/<portal>), which renders the portal chat. The token never goes in a
// URL: the frame says `atrium:ready` and the element answers with `atrium:token` by postMessage,
// to Atrium's origin only, and again whenever the `token` attribute changes. The frame reports a
// session that ended (`atrium-token-expired` event on the element: set a new token) and a refused
// token (`atrium-refused`). A frame that never says ready (its origin not allowed, so the browser
// refused to show it) is replaced by a readable refusal. The launcher takes the portal's accent
// colour from /api/portal/<portal>/embed/look.
export const EMBED_SCRIPT = String.raw`(function () {
  "use strict";
  if (!window.customElements || window.customElements.get("atrium-chat")) return;
  var script = document.currentScript;
  var ATRIUM = script && script.src ? new URL(script.src).origin : window.location.origin;
  var READY_TIMEOUT_MS = 15000;
  var HEX = /^#[0-9a-f]{6}$/i;
  var REFUSED = "This chat can't be shown on this page: the site isn't allowed to embed it, or the service can't be reached.";
  var STYLE =
    ":host{--atrium-accent:#1f4fd1;--atrium-accent-text:#fff;font:14px/1.4 system-ui,sans-serif;color-scheme:light dark}" +
    ".launcher{position:fixed;right:20px;bottom:20px;z-index:2147483000;border:0;border-radius:999px;padding:12px 18px;" +
    "background:var(--atrium-accent);color:var(--atrium-accent-text);font:inherit;font-weight:600;cursor:pointer;box-shadow:0 4px 16px rgba(0,0,0,.25)}" +
    ".launcher:focus-visible{outline:3px solid var(--atrium-accent);outline-offset:3px}" +
    ".panel{display:flex;flex-direction:column;background:Canvas;color:CanvasText;overflow:hidden}" +
    ".floating{position:fixed;right:20px;bottom:76px;z-index:2147483000;width:400px;height:min(640px,calc(100vh - 100px));" +
    "border-radius:12px;box-shadow:0 8px 32px rgba(0,0,0,.3)}" +
    ".inline{width:100%;height:var(--atrium-height,600px);border:1px solid rgba(128,128,128,.35);border-radius:8px}" +
    ".panel[hidden]{display:none}" +
    ".bar{display:flex;justify-content:flex-end;padding:4px}" +
    ".close{border:0;background:transparent;color:inherit;font:inherit;font-size:20px;line-height:1;padding:6px 10px;cursor:pointer}" +
    "iframe{flex:1;width:100%;border:0;background:transparent}" +
    ".refused{margin:16px;padding:12px;border-radius:8px;background:rgba(200,30,30,.08);color:inherit}" +
    "@media (max-width:480px){.floating{inset:0;width:auto;height:auto;border-radius:0}}";

  class AtriumChat extends HTMLElement {
    static get observedAttributes() {
      return ["token", "portal", "app", "mode"];
    }

    connectedCallback() {
      if (!this._root) {
        this._root = this.attachShadow({ mode: "open" });
        this._onMessage = this._onMessage.bind(this);
      }
      window.addEventListener("message", this._onMessage);
      this._render();
    }

    disconnectedCallback() {
      window.removeEventListener("message", this._onMessage);
      clearTimeout(this._timer);
    }

    attributeChangedCallback(name, before, after) {
      if (before === after || !this._root || !this.isConnected) return;
      if (name === "token") this._sendToken();
      else this._render();
    }

    _frameUrl() {
      var app = this.getAttribute("app");
      return ATRIUM + "/embed/" + encodeURIComponent(this.getAttribute("portal") || "") +
        (app ? "/apps/" + encodeURIComponent(app) : "");
    }

    _render() {
      var self = this;
      var root = this._root;
      var inline = this.getAttribute("mode") === "inline";
      clearTimeout(this._timer);
      root.innerHTML = "";
      this._frame = null;
      this._ready = false;
      var style = document.createElement("style");
      style.textContent = STYLE;
      root.appendChild(style);
      var panel = document.createElement("div");
      panel.className = "panel " + (inline ? "inline" : "floating");
      panel.setAttribute("part", "panel");
      this._panel = panel;
      if (inline) {
        root.appendChild(panel);
        this._openFrame();
        return;
      }
      panel.hidden = true;
      panel.id = "atrium-chat-panel";
      var bar = document.createElement("div");
      bar.className = "bar";
      var close = document.createElement("button");
      close.type = "button";
      close.className = "close";
      close.setAttribute("aria-label", "Close chat");
      close.textContent = "\u00d7";
      bar.appendChild(close);
      panel.appendChild(bar);
      var launcher = document.createElement("button");
      launcher.type = "button";
      launcher.className = "launcher";
      launcher.setAttribute("part", "launcher");
      launcher.setAttribute("aria-expanded", "false");
      launcher.setAttribute("aria-controls", panel.id);
      launcher.textContent = this.getAttribute("label") || "Chat";
      function toggle(open) {
        panel.hidden = !open;
        launcher.setAttribute("aria-expanded", String(open));
        if (open && !self._frame) self._openFrame();
        if (!open) launcher.focus();
      }
      launcher.addEventListener("click", function () { toggle(panel.hidden); });
      close.addEventListener("click", function () { toggle(false); });
      panel.addEventListener("keydown", function (event) { if (event.key === "Escape") toggle(false); });
      root.appendChild(launcher);
      root.appendChild(panel);
      this._applyLook(root);
    }

    // The portal's accent colours the launcher, as a :host rule so the page's own
    // --atrium-accent on the element still wins. A refused or failed look keeps the default.
    _applyLook(root) {
      var self = this;
      var rendered = (this._renders = (this._renders || 0) + 1);
      var url = ATRIUM + "/api/portal/" + encodeURIComponent(this.getAttribute("portal") || "") + "/embed/look";
      fetch(url, { credentials: "omit" })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (look) {
          if (!look || !HEX.test(look.accent) || !HEX.test(look.accentText) || self._renders !== rendered) return;
          var style = document.createElement("style");
          style.textContent = ":host{--atrium-accent:" + look.accent + ";--atrium-accent-text:" + look.accentText + "}";
          root.appendChild(style);
        })
        .catch(function () {});
    }

    _openFrame() {
      var self = this;
      var frame = document.createElement("iframe");
      frame.src = this._frameUrl();
      frame.title = this.getAttribute("label") || "Chat";
      frame.allow = "clipboard-write";
      frame.referrerPolicy = "strict-origin";
      this._frame = frame;
      this._panel.appendChild(frame);
      this._timer = setTimeout(function () {
        if (self._ready || self._frame !== frame) return;
        frame.remove();
        var refused = document.createElement("p");
        refused.className = "refused";
        refused.setAttribute("role", "alert");
        refused.textContent = REFUSED;
        self._panel.appendChild(refused);
        self._emit("atrium-refused", { code: "frame_unavailable", message: REFUSED });
      }, READY_TIMEOUT_MS);
    }

    _emit(type, detail) {
      this.dispatchEvent(new CustomEvent(type, { bubbles: true, composed: true, detail: detail }));
    }

    _onMessage(event) {
      if (!this._frame || event.source !== this._frame.contentWindow || event.origin !== ATRIUM) return;
      var data = event.data || {};
      if (data.type === "atrium:ready") {
        this._ready = true;
        clearTimeout(this._timer);
        this._sendToken();
      } else if (data.type === "atrium:session-ended") {
        this._emit("atrium-token-expired", {});
      } else if (data.type === "atrium:refused") {
        this._emit("atrium-refused", { code: data.code, message: data.message });
      }
    }

    _sendToken() {
      var token = this.getAttribute("token");
      if (!this._ready || !token || !this._frame || !this._frame.contentWindow) return;
      this._frame.contentWindow.postMessage({ type: "atrium:token", token: token }, ATRIUM);
    }
  }

  window.customElements.define("atrium-chat", AtriumChat);
})();
`;
