use certbench_core::corpus::Corpus;
use certbench_core::methods::{Method, Target};
use certbench_core::stages::Recorder;
use std::time::Instant;

fn main() {
    let corpus = Corpus::bundled().unwrap();
    let mut roots_der = webpki_root_certs::TLS_SERVER_ROOT_CERTS.to_vec();
    roots_der.extend(corpus.roots());
    let want: Vec<String> = std::env::args().skip(1).collect();
    let s = Method::RustlsSerial.verifier();
    let p = Method::RustlsParallel.verifier();
    let rs = s.build_roots(&roots_der).unwrap();
    let rp = p.build_roots(&roots_der).unwrap();
    for item in corpus
        .chains
        .iter()
        .filter(|c| want.is_empty() || want.iter().any(|w| c.id.contains(w.as_str())))
    {
        let target = Target::server(&item.host, item.validation_time);
        let mut ts = Vec::new();
        let mut tp = Vec::new();
        for i in 0..4000 {
            let mut rec = Recorder::new();
            let pick = match std::env::var("ONLY").as_deref() {
                Ok("s") => 0,
                Ok("p") => 1,
                _ => i % 2,
            };
            let (v, r, t) = if pick == 0 {
                (&s, &rs, &mut ts)
            } else {
                (&p, &rp, &mut tp)
            };
            let st = Instant::now();
            let _ = v.verify(r, &item.chain, target, &mut rec);
            let total = st.elapsed().as_nanos() as u64;
            let cc = rec
                .to_map()
                .into_iter()
                .find(|(k, _)| {
                    k.name()
                        == std::env::var("STAGE")
                            .as_deref()
                            .unwrap_or("total-verification")
                })
                .map(|(_, v)| v)
                .unwrap_or(total);
            t.push(cc);
            if std::env::var_os("SLEEP").is_some() {
                std::thread::sleep(std::time::Duration::from_micros(300));
            }
        }
        ts.push(0);
        tp.push(0);
        ts.sort();
        tp.sort();
        println!(
            "{:45} serial {:7.1} parallel {:7.1} ratio {:.3}",
            item.id,
            ts[ts.len() / 2] as f64 / 1e3,
            tp[tp.len() / 2] as f64 / 1e3,
            ts[ts.len() / 2] as f64 / tp[tp.len() / 2] as f64
        );
    }
}
