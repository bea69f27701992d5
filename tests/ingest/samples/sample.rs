//! A tiny in-memory key-value store with snapshots.

use std::collections::BTreeMap;
use std::fmt;

/// Errors the store reports.
#[derive(Debug, PartialEq)]
pub enum StoreError {
    Missing(String),
    ReadOnly,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Missing(key) => write!(f, "missing key {key}"),
            StoreError::ReadOnly => write!(f, "store is read-only"),
        }
    }
}

pub trait Snapshot {
    fn snapshot(&self) -> Vec<(String, String)>;
}

#[derive(Default)]
pub struct Store {
    entries: BTreeMap<String, String>,
    read_only: bool,
}

impl Store {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn get(&self, key: &str) -> Result<&str, StoreError> {
        self.entries
            .get(key)
            .map(String::as_str)
            .ok_or_else(|| StoreError::Missing(key.to_owned()))
    }

    pub fn set(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly);
        }
        self.entries.insert(key.to_owned(), value.to_owned());
        Ok(())
    }

    pub fn freeze(mut self) -> Self {
        self.read_only = true;
        self
    }
}

macro_rules! entry {
    ($store:expr, $key:expr) => {
        $store.get($key).unwrap_or_default()
    };
}

impl Snapshot for Store {
    fn snapshot(&self) -> Vec<(String, String)> {
        self.entries.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }
}

mod tests {
    use super::*;

    #[test]
    fn frozen_store_refuses_writes() {
        let mut store = Store::new().freeze();
        assert_eq!(store.set("a", "1"), Err(StoreError::ReadOnly));
    }
}
