// better-sqlite3 13 installed under an alias (see SqliteDriver in connect.ts): the same API as 12, typed by
// @types/better-sqlite3.
declare module 'better-sqlite3-napi' {
  import BetterSqlite3 from 'better-sqlite3';
  export = BetterSqlite3;
}
