// liamemory chat page: send without reload, stream the reply as it is written (server-sent
// events, polling where EventSource is missing or the stream fails), stop, retry.
// Plain JavaScript, no build step.
(function () {
  "use strict";

  var composer = document.getElementById("composer");
  if (!composer) return;

  var textarea = composer.querySelector("textarea");
  var sendButton = document.getElementById("send");
  var errorBox = document.getElementById("composer-error");
  var messages = document.getElementById("messages");
  var statusBox = document.getElementById("run-status");
  var tokensBox = document.getElementById("tokens");
  var titleBox = document.getElementById("thread-title");
  var agentTitle = composer.dataset.agent || "Assistant";
  var draftKey = "liamemory:draft:" + composer.dataset.thread;
  var csrf = composer.querySelector("input[name=csrfmiddlewaretoken]").value;
  var pollTimer = null;
  var busy = false;
  // The reply being written: {runId, source (EventSource), article, bubble, tools, cursor}.
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

  // Enter sends, Shift+Enter adds a line (and nothing is sent while an input method composes).
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

  // The older messages a reply's context quoted, as the page renders them (text only, never HTML).
  function excerptList(excerpts) {
    var details = el("details", "excerpts");
    var n = excerpts.length;
    details.appendChild(el("summary", "", "used " + n + " earlier message" + (n === 1 ? "" : "s")));
    var list = el("ul", "");
    excerpts.forEach(function (e) {
      var item = el("li", "");
      var link = el("a", "", "#" + e.sequence);
      link.href = "#msg-" + e.message_id;
      item.appendChild(link);
      item.append(" ");
      item.appendChild(el("span", "when", e.date));
      item.append(" “" + e.text + "”");
      list.appendChild(item);
    });
    details.appendChild(list);
    return details;
  }

  // Reply HTML comes from the server, already rendered from markdown and sanitized.
  function addReply(reply) {
    if (document.getElementById("msg-" + reply.id)) return;
    var article = el("article", "msg msg-" + reply.role);
    article.id = "msg-" + reply.id;
    article.appendChild(el("p", "who", reply.role === "assistant" ? reply.agent || agentTitle : "Note"));
    var bubble = el("div", "bubble md");
    bubble.innerHTML = reply.html;
    article.appendChild(bubble);
    if (reply.tools && reply.tools.length) article.appendChild(el("p", "tools", reply.tools.join(" · ")));
    if (reply.excerpts && reply.excerpts.length) article.appendChild(excerptList(reply.excerpts));
    if (reply.correct_url) article.appendChild(correctControl(reply));
    messages.appendChild(article);
  }

  // The same "Correct" control the server renders under a message (_message.html).
  function correctControl(reply) {
    var details = el("details", "correct correct-statement");
    var summary = el("summary", "btn btn-quiet", "Correct");
    details.appendChild(summary);
    var form = el("form");
    form.method = "post";
    form.action = reply.correct_url;
    var token = document.createElement("input");
    token.type = "hidden";
    token.name = "csrfmiddlewaretoken";
    token.value = csrf;
    form.appendChild(token);
    [["right_value", "What is right instead", 500, true], ["about", "About (optional)", 100, false]].forEach(function (f) {
      var id = f[0] + "-" + reply.id;
      var label = el("label", "", f[1]);
      label.htmlFor = id;
      var input = document.createElement("input");
      input.id = id;
      input.name = f[0];
      input.maxLength = f[2];
      input.required = f[3];
      form.appendChild(label);
      form.appendChild(input);
    });
    form.appendChild(el("button", "btn btn-primary", "Save correction"));
    details.appendChild(form);
    return details;
  }

  function setTokens(tokens) {
    if (!tokens || !tokens.sent) return;
    tokensBox.textContent = "";
    tokensBox.append("Tokens sent by this conversation: ");
    tokensBox.appendChild(el("strong", "", String(tokens.sent)));
    tokensBox.append(". Resending the full history every turn would have cost ");
    tokensBox.appendChild(el("strong", "", String(tokens.full)));
    tokensBox.append(" (" + tokens.comparison + ").");
  }

  function actionButton(label, url, action, primary) {
    var button = el("button", primary ? "btn btn-primary" : "btn", label);
    button.type = "button";
    button.addEventListener("click", function () { runAction(url, action); });
    return button;
  }

  function showState(run) {
    statusBox.textContent = "";
    statusBox.dataset.status = run.status;
    var box;
    if (run.status === "queued" || run.status === "running") {
      box = el("div", "thinking");
      var dots = el("span", "dots");
      dots.setAttribute("aria-hidden", "true");
      dots.append(el("i"), el("i"), el("i"));
      box.appendChild(dots);
      box.appendChild(el("span", "run-text", (run.agent || agentTitle) + " is thinking…"));
      if (run.cancel_url) {
        var stop = actionButton("Stop", run.cancel_url, "cancel", false);
        stop.className = "btn btn-quiet";
        box.appendChild(stop);
      }
    } else if (run.status === "interrupted") {
      box = el("div", "waiting");
      box.appendChild(el("span", "run-text",
        "Waiting for approval: a staff member must approve the action this reply asked for. " +
        "It goes on by itself once they decide."));
    } else if (run.status === "failed") {
      box = el("div", "run-error");
      box.setAttribute("role", "alert");
      box.appendChild(el("span", "run-text", (run.error ? run.error.text : "Something went wrong.") + " Your message is saved."));
      box.appendChild(actionButton("Try again", run.retry_url, "retry", true));
    } else if (run.status === "cancelled") {
      box = el("div", "stopped");
      box.appendChild(el("span", "run-text", "Stopped."));
      box.appendChild(actionButton("Regenerate", run.retry_url, "retry", false));
    }
    if (box) statusBox.appendChild(box);
  }

  // Streamed text is shown as plain text (textContent), never parsed as HTML; the final
  // reply replaces it with the server's rendered, sanitized markdown.
  function liveArticle(run) {
    if (!live.article) {
      removeEmptyHint();
      var article = el("article", "msg msg-assistant msg-streaming");
      article.setAttribute("aria-busy", "true");
      article.appendChild(el("p", "who", run.agent || agentTitle));
      live.bubble = el("div", "bubble");
      article.appendChild(live.bubble);
      live.toolsBox = el("p", "tools");
      live.toolsBox.hidden = true;
      article.appendChild(live.toolsBox);
      messages.insertBefore(article, null);
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
    if (!window.EventSource || !run.events_url) return false;
    if (live && live.runId !== run.id) dropLive();
    if (live && live.source) return true;
    if (!live) live = { runId: run.id, cursor: "", tools: [] };
    var url = run.events_url + (live.cursor ? "?cursor=" + encodeURIComponent(live.cursor) : "");
    var source = new EventSource(url);
    live.source = source;
    source.addEventListener("delta", function (event) {
      var data = JSON.parse(event.data);
      liveArticle(run);
      live.bubble.appendChild(document.createTextNode(data.text));
      live.cursor = event.lastEventId;
      scrollToEnd();
    });
    source.addEventListener("tool", function (event) {
      var data = JSON.parse(event.data);
      liveArticle(run);
      if (live.tools.indexOf(data.label) < 0) live.tools.push(data.label);
      live.toolsBox.textContent = live.tools.join(" · ");
      live.toolsBox.hidden = false;
      live.cursor = event.lastEventId;
    });
    source.addEventListener("state", function (event) {
      closeSource();
      follow(JSON.parse(event.data));
    });
    source.addEventListener("gone", function () {
      closeSource();
      poll(run.url, 700);
    });
    // A dropped stream (or one the server ended after its time limit) goes on by polling,
    // which opens a new stream from the cursor.
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
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (response) {
          if (!response.ok) throw new Error("status " + response.status);
          return response.json();
        })
        .then(function (run) { follow(run); })
        .catch(function () { poll(url, 3000); });
    }, delay);
  }

  function follow(run) {
    if (run.done || run.status === "interrupted") dropLive();
    (run.replies || []).forEach(addReply);
    setTokens(run.tokens);
    if (run.status === "completed") {
      statusBox.textContent = "";
      statusBox.dataset.status = "completed";
      setBusy(false);
      scrollToEnd();
      textarea.focus();
      return;
    }
    showState(run);
    scrollToEnd();
    if (run.done) {
      setBusy(false);
      return;
    }
    setBusy(true);
    if (run.status === "interrupted" || !stream(run)) poll(run.url, run.status === "interrupted" ? 3000 : 700);
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      body: body,
      headers: { Accept: "application/json", "X-CSRFToken": csrf },
      credentials: "same-origin",
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) throw new Error(data.message || "The server answered " + response.status + ".");
        return data;
      });
    });
  }

  function runAction(url, action) {
    errorBox.textContent = "";
    post(url, new FormData()).then(function (run) {
      follow(run);
    }).catch(function (error) {
      errorBox.textContent = error.message;
    });
    if (action === "retry") setBusy(true);
  }

  composer.addEventListener("submit", function (event) {
    event.preventDefault();
    var text = textarea.value;
    if (!text.trim() || busy) return;
    errorBox.textContent = "";
    setBusy(true);
    var pending = addUserMessage(text);
    showState({ status: "queued", agent: agentTitle, cancel_url: "" });
    post(composer.action, new FormData(composer)).then(function (data) {
      pending.id = "msg-" + data.message.id;
      pending.classList.remove("msg-pending");
      textarea.value = "";
      clearDraft();
      if (data.title && titleBox) {
        titleBox.textContent = data.title;
        document.title = data.title + " · liamemory";
      }
      follow(data.run);
    }).catch(function (error) {
      // The text stays in the composer; only the optimistic bubble goes.
      pending.remove();
      statusBox.textContent = "";
      errorBox.textContent = error.message;
      setBusy(false);
      textarea.focus();
    });
  });

  // Forms the server rendered for the current run (stop, try again) work without reload too.
  statusBox.addEventListener("submit", function (event) {
    var form = event.target.closest("form.js-run-action");
    if (!form) return;
    event.preventDefault();
    runAction(form.action, form.dataset.action);
  });

  var status = statusBox.dataset.status;
  if (status === "queued" || status === "running" || status === "interrupted") {
    setBusy(true);
    poll(statusBox.dataset.url, 300);
  }
  if (!window.location.hash) scrollToEnd();
  textarea.focus();
})();
