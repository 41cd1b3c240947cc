// liamemory chat page: send without reload, stream the reply as it is written (server-sent
// events, polling where EventSource is missing or the stream fails), stop, retry.
// A turn is followed through the JSON API, as any client would (POST /api/threads/<id>/messages,
// GET /api/runs/<id> and its events, POST …/retry and …/cancel); what a turn adds to the page
// comes as HTML rendered by the page's own templates (GET /c/<id>/update).
// Plain JavaScript, no build step.
(function () {
  "use strict";

  var composer = document.getElementById("composer");
  if (!composer) return;

  var textarea = composer.querySelector("textarea");
  var sendButton = document.getElementById("send");
  var errorBox = document.getElementById("composer-error");
  var messages = document.getElementById("messages");
  var tokensBox = document.getElementById("tokens");
  var titleBox = document.getElementById("thread-title");
  var agentTitle = composer.dataset.agent || "Assistant";
  var draftKey = "liamemory:draft:" + composer.dataset.thread;
  var csrf = composer.querySelector("input[name=csrfmiddlewaretoken]").value;
  var toolLabels = JSON.parse(document.getElementById("tool-labels").textContent);
  // The page shows the conversation's messages through this number (the updates ask for what follows).
  var through = parseInt(messages.dataset.through, 10) || 0;
  var pollTimer = null;
  var busy = false;
  // The turn last shown as waiting for approval (its status box comes from the server once).
  var waitingShown = "";
  // The reply being written: {runId, source (EventSource), article, bubble, toolsBox, tools, cursor}.
  var live = null;

  // Nothing typed is lost: the draft survives a reload, a failed send and a failed run.
  try {
    var saved = window.sessionStorage.getItem(draftKey);
    if (saved && !textarea.value) textarea.value = saved;
  } catch (e) { /* storage may be off */ }
  function saveDraft() {
    try { window.sessionStorage.setItem(draftKey, textarea.value); } catch (e) { /* ignore */ }
  }
  function clearDraft() {
    try { window.sessionStorage.removeItem(draftKey); } catch (e) { /* ignore */ }
  }
  textarea.addEventListener("input", saveDraft);

  // Enter sends, Shift+Enter adds a line (and nothing is sent while an input method composes);
  // the hint saying so is hidden on a page without this script, where Enter adds a line.
  document.getElementById("composer-hint").hidden = false;
  textarea.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      if (!sendButton.disabled) composer.requestSubmit();
    }
  });

  function scrollToEnd() {
    window.scrollTo({ top: document.body.scrollHeight });
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  function statusBox() {
    return document.getElementById("run-status");
  }

  function removeEmptyHint() {
    var hint = document.getElementById("empty-hint");
    if (hint) hint.remove();
  }

  function addUserMessage(text) {
    removeEmptyHint();
    var article = el("article", "msg msg-user msg-pending");
    article.appendChild(el("div", "bubble", text));
    messages.appendChild(article);
    scrollToEnd();
    return article;
  }

  // A control the person has opened on a message (its "Correct" form, the excerpts) and
  // what they typed there survive the server's new rendering of that message.
  function keepOpened(from, to) {
    var before = from.querySelectorAll("details");
    var after = to.querySelectorAll("details");
    for (var i = 0; i < before.length && i < after.length; i++) {
      if (before[i].open && before[i].className === after[i].className) after[i].open = true;
    }
    Array.prototype.forEach.call(from.querySelectorAll("input[name], textarea[name]"), function (field) {
      var same = to.querySelector(field.tagName.toLowerCase() + '[name="' + field.name + '"]');
      if (same && field.value && field.type !== "hidden") same.value = field.value;
    });
  }

  // What changed since the messages the page shows: new messages (a message already on the
  // page, such as the one just sent, is replaced by the server's rendering of it, "Correct"
  // control included) and the title; without upTo also the tokens and the turn's status box
  // (an update up to the message just sent may arrive after the turn's end: it leaves them be).
  function update(upTo) {
    var url = messages.dataset.updateUrl + "?after=" + through + (upTo ? "&through=" + upTo : "");
    return fetch(url, { headers: { Accept: "text/html" }, credentials: "same-origin", cache: "no-store" })
      .then(function (response) {
        if (!response.ok) throw new Error("status " + response.status);
        return response.text();
      })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var root = doc.getElementById("chat-update");
        var before = live && live.article ? live.article : null;
        Array.prototype.slice.call(doc.getElementById("update-messages").children).forEach(function (article) {
          var shown = article.id && document.getElementById(article.id);
          if (shown) {
            keepOpened(shown, article);
            shown.replaceWith(article);
          } else {
            removeEmptyHint();
            messages.insertBefore(article, before);
          }
        });
        through = Math.max(through, parseInt(root.dataset.through, 10) || 0);
        if (root.dataset.title && titleBox) {
          titleBox.textContent = root.dataset.title;
          document.title = root.dataset.title + " · liamemory";
        }
        if (upTo) return;
        tokensBox.replaceChildren.apply(tokensBox, Array.prototype.slice.call(doc.getElementById("update-tokens").childNodes));
        statusBox().replaceWith(doc.getElementById("run-status"));
      });
  }

  // The run's own status box while it is queued or running (Stop once the run exists).
  function showThinking(run) {
    var box = statusBox();
    if (box.dataset.status === run.status && box.dataset.url === (run.url || "")) return;
    box.textContent = "";
    box.dataset.status = run.status;
    box.dataset.url = run.url || "";
    var thinking = el("div", "thinking");
    var dots = el("span", "dots");
    dots.setAttribute("aria-hidden", "true");
    dots.append(el("i"), el("i"), el("i"));
    thinking.appendChild(dots);
    thinking.append(" ");
    thinking.appendChild(el("span", "run-text", agentTitle + " is thinking…"));
    if (run.url) {
      var stop = el("button", "btn btn-quiet", "Stop");
      stop.type = "button";
      stop.dataset.action = "cancel";
      stop.dataset.url = run.url + "/cancel";
      thinking.appendChild(stop);
    }
    box.appendChild(thinking);
  }

  // Streamed text is shown as plain text (textContent), never parsed as HTML; the final
  // reply replaces it with the server's rendered, sanitized markdown.
  function liveArticle() {
    if (!live.article) {
      removeEmptyHint();
      var article = el("article", "msg msg-assistant msg-streaming");
      article.setAttribute("aria-busy", "true");
      article.appendChild(el("p", "who", agentTitle));
      live.bubble = el("div", "bubble");
      article.appendChild(live.bubble);
      live.toolsBox = el("p", "tools");
      live.toolsBox.hidden = true;
      article.appendChild(live.toolsBox);
      messages.appendChild(article);
      live.article = article;
    }
    return live.article;
  }

  function dropLive() {
    if (!live) return;
    if (live.source) live.source.close();
    if (live.article) live.article.remove();
    live = null;
  }

  function closeSource() {
    if (live && live.source) {
      live.source.close();
      live.source = null;
    }
  }

  function stream(run) {
    if (!window.EventSource) return false;
    if (live && live.runId !== run.id) dropLive();
    if (live && live.source) return true;
    if (!live) live = { runId: run.id, cursor: "", tools: [] };
    var source = new EventSource(run.url + "/events" + (live.cursor ? "?cursor=" + encodeURIComponent(live.cursor) : ""));
    live.source = source;
    source.addEventListener("delta", function (event) {
      var data = JSON.parse(event.data);
      liveArticle();
      live.bubble.appendChild(document.createTextNode(data.text));
      live.cursor = event.lastEventId;
      scrollToEnd();
    });
    source.addEventListener("tool", function (event) {
      var data = JSON.parse(event.data);
      var label = toolLabels[data.name] || "used a tool";
      liveArticle();
      if (live.tools.indexOf(label) < 0) live.tools.push(label);
      live.toolsBox.textContent = live.tools.join(" · ");
      live.toolsBox.hidden = false;
      live.cursor = event.lastEventId;
    });
    // The run went back to the queue (the database or its worker failed it) and writes its
    // reply again from the start: what was shown of the first attempt goes.
    source.addEventListener("restart", function (event) {
      if (live.article) live.article.remove();
      live.article = null;
      live.tools = [];
      live.cursor = event.lastEventId;
    });
    // The stream ends with the run as GET /api/runs/<id> gives it.
    source.addEventListener("run", function (event) {
      closeSource();
      follow(JSON.parse(event.data));
    });
    // A run that is gone, a dropped stream (or one the server ended after its time limit)
    // goes on by polling, which opens a new stream from the cursor.
    source.addEventListener("gone", function () {
      closeSource();
      poll(run.url, 700);
    });
    source.onerror = function () {
      closeSource();
      poll(run.url, 700);
    };
    return true;
  }

  function setBusy(value) {
    busy = value;
    sendButton.disabled = value;
  }

  function poll(url, delay) {
    window.clearTimeout(pollTimer);
    pollTimer = window.setTimeout(function () {
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin", cache: "no-cache" })
        .then(function (response) {
          if (!response.ok) throw new Error("status " + response.status);
          return response.json();
        })
        .then(function (run) { follow(run); })
        .catch(function () { poll(url, 3000); });
    }, delay);
  }

  // A run as the API gives it: follow it while it is written, then show what it left.
  function follow(run) {
    window.clearTimeout(pollTimer);
    if (run.status === "queued" || run.status === "running") {
      setBusy(true);
      showThinking(run);
      if (!stream(run)) poll(run.url, 700);
      return;
    }
    closeSource();
    if (run.status === "interrupted") {
      setBusy(true);
      if (waitingShown !== run.id) {
        waitingShown = run.id;
        update().catch(function () { waitingShown = ""; });
      }
      poll(run.url, 3000);
      return;
    }
    // Completed, failed or stopped: the replies it stored (a stopped one too, marked), the
    // status box (the error, Try again, Regenerate) and the tokens, as the server renders them.
    update().then(function () {
      dropLive();
      setBusy(false);
      scrollToEnd();
      textarea.focus();
    }).catch(function () { poll(run.url, 3000); });
  }

  function post(url, body) {
    var headers = { Accept: "application/json", "X-CSRFToken": csrf };
    if (body) headers["Content-Type"] = "application/json";
    return fetch(url, {
      method: "POST",
      body: body ? JSON.stringify(body) : undefined,
      headers: headers,
      credentials: "same-origin",
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) throw new Error(data.message || "The server answered " + response.status + ".");
        return data;
      });
    });
  }

  // Stop, Try again and Regenerate, in the status box the server or this script rendered:
  // through the run API (the server's buttons are also forms, for a page without script).
  document.addEventListener("click", function (event) {
    var button = event.target.closest("#run-status button[data-action]");
    if (!button) return;
    event.preventDefault();
    errorBox.textContent = "";
    if (button.dataset.action === "cancel") closeSource();
    if (button.dataset.action === "retry") setBusy(true);
    post(button.dataset.url, null).then(follow).catch(function (error) {
      errorBox.textContent = error.message;
      if (button.dataset.action === "retry") setBusy(false);
    });
  });

  composer.addEventListener("submit", function (event) {
    event.preventDefault();
    var text = textarea.value;
    if (!text.trim() || busy) return;
    errorBox.textContent = "";
    setBusy(true);
    var pending = addUserMessage(text);
    showThinking({ status: "queued" });
    post(composer.dataset.api, { content: text }).then(function (data) {
      pending.id = "msg-" + data.message.id;
      pending.classList.remove("msg-pending");
      textarea.value = "";
      clearDraft();
      follow(data.run);
      // The message as the page renders it (its "Correct" control) and the title it gave.
      update(data.message.sequence);
    }).catch(function (error) {
      // The text stays in the composer; only the optimistic bubble goes.
      pending.remove();
      statusBox().textContent = "";
      statusBox().dataset.status = "";
      errorBox.textContent = error.message;
      setBusy(false);
      textarea.focus();
    });
  });

  var initial = statusBox().dataset.status;
  if (initial === "queued" || initial === "running" || initial === "interrupted") {
    setBusy(true);
    if (initial === "interrupted") waitingShown = statusBox().dataset.url.split("/").pop();
    poll(statusBox().dataset.url, 300);
  }
  if (!window.location.hash) scrollToEnd();
  textarea.focus();
})();
