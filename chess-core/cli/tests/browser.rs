//! The playground in a real browser: headless Chromium driven through WebDriver (chromedriver and
//! the `fantoccini` client) against `che serve` on a loopback port. It types a program, compiles
//! it and sees the advice picture, then types a broken program and sees the diagnostic on the
//! offending line, then debugs a third: a breakpoint set by clicking its line number, `Debug`
//! stopping there and `Step over` going to the next line.
//!
//! Ignored by default (it needs Debian's `chromium` and `chromium-driver`); `.ci/run` installs
//! them when missing and runs it with `cargo test -p che-cli --test browser -- --ignored`. With
//! `CHE_SCREENSHOT=path.png` it also saves a screenshot of the page (the one in `docs/` was made
//! so).

use che_cli::serve::limits::Limits;
use fantoccini::{ClientBuilder, Locator};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Kills the driver when the test ends, however it ends.
struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn find_program(names: &[&str]) -> Option<String> {
    names.iter().find_map(|name| {
        ["/usr/bin", "/usr/lib/chromium", "/usr/local/bin"]
            .iter()
            .map(|dir| format!("{dir}/{name}"))
            .find(|p| std::path::Path::new(p).is_file())
    })
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn start_server() -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = che_cli::serve::run(0, Limits::default(), |addr| {
            let _ = tx.send(addr);
        });
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the server starts")
}

const PROGRAM: &str =
    "procedure main()\nbegin\n  SetMvs(w, 40, e2e4);\n  SetSqrs(wN, 30, f3);\n  write 7;\nend;\n";
/// Debugged in the page: a breakpoint on line 4, a step to line 5.
const DEBUGGED: &str = "procedure main()\nvar n;\nbegin\n  n := 6;\n  write n;\nend;\n";

const BROKEN: &str = "procedure main()\nbegin\n  write 1;\n  x := ;\nend;\n";

#[tokio::test]
#[ignore = "needs chromium and chromium-driver (run by .ci/run)"]
async fn the_playground_in_headless_chromium() {
    let driver_path = find_program(&["chromedriver"]).expect("chromedriver is installed");
    let browser = find_program(&["chromium"]).expect("chromium is installed");
    let server = start_server();
    let port = free_port();
    let _driver = Driver(
        Command::new(driver_path)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver"),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not start");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        serde_json::json!({
            "binary": browser,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1100"]
        }),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let client = ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a WebDriver session");
    client
        .goto(&format!("http://{server}/"))
        .await
        .expect("open the page");

    // Type a program and compile it: the advice picture shows the arrow and the heat square.
    let source = client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css("#source"))
        .await
        .expect("the editor");
    source.clear().await.expect("clear");
    source.send_keys(PROGRAM).await.expect("type the program");
    client
        .find(Locator::Css("#compile"))
        .await
        .expect("the compile button")
        .click()
        .await
        .expect("click");
    let arrow = client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css("#advice svg line.arrow"))
        .await
        .expect("the advice picture");
    assert_eq!(
        arrow.attr("data-move").await.expect("attr").as_deref(),
        Some("e2e4")
    );
    let heat = client
        .find(Locator::Css("#advice svg rect.heat"))
        .await
        .expect("a heat square");
    assert_eq!(
        heat.attr("data-square").await.expect("attr").as_deref(),
        Some("f3")
    );
    let output = client
        .find(Locator::Css("#output"))
        .await
        .expect("output")
        .text()
        .await
        .expect("text");
    assert!(output.contains("7 0x00000007"), "{output}");
    // Compile & run runs every backend, the tiered one included.
    for backend in ["[interp]", "[jit]", "[auto]"] {
        assert!(output.contains(backend), "no {backend} run in {output}");
    }
    if let Ok(path) = std::env::var("CHE_SCREENSHOT") {
        let png = client.screenshot().await.expect("a screenshot");
        std::fs::write(path, png).expect("write the screenshot");
    }

    // A broken program: a diagnostic for line 4, and the line marked in the gutter.
    source.clear().await.expect("clear");
    source.send_keys(BROKEN).await.expect("type");
    client
        .find(Locator::Css("#compile"))
        .await
        .expect("button")
        .click()
        .await
        .expect("click");
    let diagnostic = client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css("#diagnostics li.error"))
        .await
        .expect("a diagnostic");
    assert_eq!(
        diagnostic.attr("data-line").await.expect("attr").as_deref(),
        Some("4")
    );
    let marked = client
        .find(Locator::Css("#gutter .bad"))
        .await
        .expect("the marked line");
    assert_eq!(
        marked.attr("data-line").await.expect("attr").as_deref(),
        Some("4")
    );

    // Debugging: a breakpoint set by clicking its line number; Debug stops there (the line
    // marked, its locals shown), Step over goes to the next line.
    source.clear().await.expect("clear");
    source.send_keys(DEBUGGED).await.expect("type");
    client
        .find(Locator::Css("#gutter span[data-line='4']"))
        .await
        .expect("line 4's number")
        .click()
        .await
        .expect("click");
    client
        .find(Locator::Css("#debug"))
        .await
        .expect("the debug button")
        .click()
        .await
        .expect("click");
    client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css("#gutter .here.bp[data-line='4']"))
        .await
        .expect("stopped at the breakpoint on line 4");
    client
        .find(Locator::Css("#dbg-next"))
        .await
        .expect("the step button")
        .click()
        .await
        .expect("click");
    client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css("#gutter .here[data-line='5']"))
        .await
        .expect("stopped on line 5");
    let state = client
        .find(Locator::Css("#debugger"))
        .await
        .expect("the debugger's view")
        .text()
        .await
        .expect("text");
    assert!(state.contains("stopped (step) in main"), "{state}");
    assert!(state.contains("n = 6"), "{state}");
    client.close().await.expect("end the session");
}
