"""The virtual device's web engine: what renders WebViews and Chrome pages.

A real device renders web content with Chromium in the app's own process (the WebView) or in
Chrome's, and each such process serves the DevTools protocol on an abstract unix socket
(`webview_devtools_remote_<pid>`, `chrome_devtools_remote`). The double does the same with a real
headless chromium on the host, one per device process, started when that process first shows web
content (`engine.WebEngine`) and killed by its pid when the process dies or the device stops:

* `chromium`: the host's chromium process (tied to our process), in a profile folder of its own
  (`profiles`: reaped when its owner was killed);
* `engine`: the device's chromiums, one per process that shows web content, started on its first page;
* `cdp`: the double's own DevTools client over chromium's `--remote-debugging-pipe`;
* `browser`: one device process's chromium, its pages and its DevTools socket;
* `devtools_socket`: the socket on the device, relaying each connection to chromium's DevTools
  with the answers Android's WebView and Chrome give (`/json/version`, `/json/list`);
* `page`: one page (a WebView's or a Chrome tab's), driven through the pipe.

This room imports only the kernel (sockets, processes).
"""
