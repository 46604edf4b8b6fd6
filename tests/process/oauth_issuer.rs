//! `--oauth-issuer`: an external OpenID provider's JWTs, checked against its published keys.
//! The provider here is a small HTTP server in the test that publishes a P-256 key.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use crate::common::assert_mentions;
use crate::common::http::{get, HttpMcp, HttpServer};
use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde_json::{json, Value};

const AUDIENCE: &str = "https://mem.example.com/mcp";

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn key_pair() -> EcdsaKeyPair {
    let rng = SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap()
}

fn jwk(pair: &EcdsaKeyPair, kid: &str) -> Value {
    let point = pair.public_key().as_ref();
    json!({"kty": "EC", "crv": "P-256", "kid": kid, "alg": "ES256", "use": "sig",
           "x": b64(&point[1..33]), "y": b64(&point[33..65])})
}

fn sign(pair: &EcdsaKeyPair, kid: &str, claims: &Value) -> String {
    let header = json!({"alg": "ES256", "typ": "JWT", "kid": kid});
    let input = format!(
        "{}.{}",
        b64(header.to_string().as_bytes()),
        b64(claims.to_string().as_bytes())
    );
    let signature = pair.sign(&SystemRandom::new(), input.as_bytes()).unwrap();
    format!("{input}.{}", b64(signature.as_ref()))
}

/// Serves the discovery document and the key set until the test ends; the issuer's URL.
fn provider(keys: Value) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let discovery = json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks.json")});
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut line = String::new();
            if BufReader::new(&stream).read_line(&mut line).is_err() {
                continue;
            }
            let body = if line.contains("/.well-known/openid-configuration") {
                discovery.to_string()
            } else if line.contains("/jwks.json") {
                json!({"keys": keys}).to_string()
            } else {
                let _ = stream.write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
                continue;
            };
            let _ = stream.write_all(
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
                .as_bytes(),
            );
        }
    });
    issuer
}

/// A server whose public URL is `AUDIENCE`'s and whose OAuth is `issuer`'s.
fn serve_with(root: &std::path::Path, issuer: &str) -> HttpServer {
    HttpServer::start(
        root,
        &[
            "--oauth-issuer",
            issuer,
            "--public-url",
            "https://mem.example.com",
        ],
    )
}

fn claims(issuer: &str, audience: &str, expires_in: i64, scope: &str) -> Value {
    let now = chrono::Utc::now().timestamp();
    json!({"iss": issuer, "aud": audience, "sub": "owner@example.com",
           "iat": now, "exp": now + expires_in, "scope": scope})
}

fn status_with(server: &HttpServer, token: &str) -> u16 {
    HttpMcp::stateless(&server.base, Some(token))
        .request("tools/list", json!({}))
        .map_or_else(|a| a.status, |_| 200)
}

#[test]
fn an_external_issuers_tokens_are_checked_against_its_keys() {
    let pair = key_pair();
    let issuer = provider(json!([jwk(&pair, "k1")]));
    let root = tempfile::tempdir().unwrap();
    let server = serve_with(root.path(), &issuer);
    assert_eq!(server.one_time, None, "the issuer is the credential");

    let metadata = get(&server.url("/.well-known/oauth-protected-resource"), &[]).json();
    assert_eq!(metadata["authorization_servers"], json!([issuer]));
    assert_eq!(metadata["resource"], json!(AUDIENCE));
    assert_eq!(
        get(&server.url("/.well-known/oauth-authorization-server"), &[]).status,
        404,
        "the built-in authorization server is off"
    );

    let writer = sign(&pair, "k1", &claims(&issuer, AUDIENCE, 300, "read write"));
    let mut client = HttpMcp::stateless(&server.base, Some(&writer));
    client
        .call(
            "write_note",
            json!({"title": "Federated", "directory": "f", "content": "signed in elsewhere"}),
        )
        .ok();

    let reader = sign(&pair, "k1", &claims(&issuer, AUDIENCE, 300, "read"));
    let tools = HttpMcp::stateless(&server.base, Some(&reader)).tools();
    assert!(tools.contains(&"read_note".to_string()));
    assert!(!tools.contains(&"write_note".to_string()), "{tools:?}");

    let other_key = key_pair();
    for (why, token) in [
        (
            "another audience",
            sign(
                &pair,
                "k1",
                &claims(&issuer, "https://other.example/mcp", 300, "write"),
            ),
        ),
        (
            "expired",
            sign(&pair, "k1", &claims(&issuer, AUDIENCE, -3600, "write")),
        ),
        (
            "another issuer",
            sign(
                &pair,
                "k1",
                &claims("https://evil.example", AUDIENCE, 300, "write"),
            ),
        ),
        (
            "a forged signature",
            sign(&other_key, "k1", &claims(&issuer, AUDIENCE, 300, "write")),
        ),
        (
            "an unknown key",
            sign(&other_key, "k2", &claims(&issuer, AUDIENCE, 300, "write")),
        ),
        ("not a JWT", "gmt_plain".to_string()),
    ] {
        assert_eq!(status_with(&server, &token), 401, "{why}");
    }
}

/// A 2048-bit RSA key made for this test only (PKCS#1 DER, base64): ring cannot generate RSA keys.
const TEST_RSA_KEY: &str = "MIIEowIBAAKCAQEAnd0uSkjX8AByfc0zphN6pzqkc6Qk8fNkAxv7kkeMiiWb2z6Eig8jBqW7KkB01htdf24bof0J0Nkqqc2tYFB6pWZ8ZpvMUNEjySzpC+3D+Oa5Tl5aSVnpyMvCGJirTJM4juN3Nev21p2CPqRWbpYhWeOh7qaEadk1j3uo4DB06kPv0iWkTyoWhhNuQ4wu0Gf8NO9VS/9GNunDY1gpBc5CroigGLvdP9tlwunsaShAtu6ivIYnE/dcsckkB7U4wl4+aacoU+rVCMOtcfreuGFChdBg+gQMQTJAn/jDM7aqxLjxdu3/vPMtZ7oBIw08k3BtDefmZ/v5jeFXjxBg9JDMQwIDAQABAoIBAEbiEK30RVmTqdUI9b8FkhZSw5LVSm2FnwuyXeSR0e4Z8wCf8r1XDKAofID9TjjxMqtMUoYK64RmbryuCMJtgJSSDxu3qydCsTHcw4vCqDMzzlL9FMdI4ytxKmcG7ivFEyk9w8JngH9fXCMqgVDIgpMtHgHdrSkmCeGyYeLAf07Mm19KCO36TrXIO4uB1v+WhEGcWuRjjeRG4KgCZ3jmWQ4Y8hOVLCeJ9ye02mp49QF/bIJkkk4YIuOMBN6z9GYDq0eoEbuyskwC6h7ZJ0Iu4KR9NbSIsLsxq35pdjeAA/d3Jfq/whCusT/OLPB+YljIoNgBeElQQFBIXDpSRgSf6DECgYEA2cMSHXSBvZ0bjn2MCxbsreTwEca+rkcq/YZlqSNb9MGz7VfKx225dxWkrDKkTvXCVM3pXblF7ahiAe6vqRKijKmn8V4jV+rGc6OHhLwMLowhXTo0LPf726pdNQePqitTNZc0CjGjCPvdJQbOx4SYvCOGgkXPGe9i98PImvs0mEsCgYEAuZWMrIyGgBMKHTYmrIU164vIjpT8XqAugEbc8lvJ4fFxC0Zu7PquClOhf8tyjwCvMDCqwHmZO11PbqEt1JG+1REtdTLCS5E/NddvTij+jevwkoTVrmDhXAqtnmW5PJziiG9JqLTYt1n5Dp0fyMNXALFuSjpxM9xBErglVD8YkOkCgYEA1PNfjrB1g9DUtuZtgha8A14Dqs6Zf+KW1vCMD/hFH7ghVTPqWFYj7aGbtM2dQp4wmS/4S7A4Ay4MEemxnHxdu4LZej9d/sbXpRRBHXurygU9R2b4yRUFFg6nMYmgY4AU0i54NJPP5KQw4dmjcxdnKWzwSAsueSVRugua7HxGNbsCgYBb89V3yUj7PHPOdX5EDNzikKgWvYst94AS3wmqrAAji1XPmF5t3OdPBpEGmO9yG4yx++se4yEhYOJyljn3ER/UwmYbo8LRXm5LZysnNvipqTXR4y9c73O5/zB3Qz+84J79quZ8SN74OgRFUWTmPKNnHILhFIPyhjdX5xXX4EtzwQKBgFohuIKPHoOPV/x5ZB+yuvaNkOvH/P2xz/8DCt2Ntq2J8bPI2YsuyjvQ1ucCWzSgl9zv06E8FWY5GhQm7xk+x8kyDVkmVcJwJaLMOI3S/hWDRSPL4+SCnIjE7hJoL4tCI+fC70H79nM3hGugJ3L9etk9qejFim2hnOOYBxojuvxw";

#[test]
fn rs256_tokens_are_checked_too() {
    let der = base64::engine::general_purpose::STANDARD
        .decode(TEST_RSA_KEY)
        .unwrap();
    let pair = ring::signature::RsaKeyPair::from_der(&der).unwrap();
    let public = ring::signature::RsaPublicKeyComponents::<Vec<u8>>::from(pair.public());
    let issuer = provider(json!([{"kty": "RSA", "kid": "r1", "alg": "RS256",
                                   "n": b64(&public.n), "e": b64(&public.e)}]));
    let root = tempfile::tempdir().unwrap();
    let server = serve_with(root.path(), &issuer);
    let sign_rs256 = |claims: &Value| {
        let header = json!({"alg": "RS256", "typ": "JWT", "kid": "r1"});
        let input = format!(
            "{}.{}",
            b64(header.to_string().as_bytes()),
            b64(claims.to_string().as_bytes())
        );
        let mut signature = vec![0; pair.public().modulus_len()];
        pair.sign(
            &ring::signature::RSA_PKCS1_SHA256,
            &SystemRandom::new(),
            input.as_bytes(),
            &mut signature,
        )
        .unwrap();
        format!("{input}.{}", b64(&signature))
    };
    let good = sign_rs256(&claims(&issuer, AUDIENCE, 300, "write"));
    assert_eq!(status_with(&server, &good), 200);
    let mut tampered = sign_rs256(&claims(&issuer, AUDIENCE, 300, "read"));
    tampered.replace_range(20..24, "AAAA");
    assert_eq!(status_with(&server, &tampered), 401);
}

#[test]
fn an_unreachable_issuer_stops_the_server_from_starting() {
    // An issuer that hangs up on every connection without an answer; the port stays taken for
    // the whole test, so nothing else can answer on it.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || listener.incoming().for_each(drop));
    let root = tempfile::tempdir().unwrap();
    let refused = HttpServer::try_start(root.path(), &["--oauth-issuer", &dead], &[])
        .err()
        .expect("the server must not start");
    assert_mentions(&refused, "discovery document");
}
