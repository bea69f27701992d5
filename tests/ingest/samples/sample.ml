(* A small key-value store with a write-ahead log. *)

open Printf

type key = string

type entry = {
  key : key;
  value : string;
  version : int;
}

type command =
  | Put of key * string
  | Delete of key

exception Corrupt_log of string

module type STORE = sig
  type t
  val empty : t
  val find : t -> key -> entry option
  val apply : t -> command -> t
end

module Key_map = Map.Make (String)

module Memory : STORE = struct
  type t = entry Key_map.t

  let empty = Key_map.empty

  let find store key = Key_map.find_opt key store

  let apply store = function
    | Put (key, value) ->
        let version =
          match Key_map.find_opt key store with
          | Some entry -> entry.version + 1
          | None -> 1
        in
        Key_map.add key { key; value; version } store
    | Delete key -> Key_map.remove key store
end

module Log = struct
  let encode = function
    | Put (key, value) -> sprintf "P %s %s" key value
    | Delete key -> sprintf "D %s" key

  let decode line =
    match String.split_on_char ' ' line with
    | [ "P"; key; value ] -> Put (key, value)
    | [ "D"; key ] -> Delete key
    | _ -> raise (Corrupt_log line)
end

let rec replay store = function
  | [] -> store
  | line :: rest -> replay (Memory.apply store (Log.decode line)) rest

and replay_file store path =
  let channel = open_in path in
  let rec lines acc =
    match input_line channel with
    | line -> lines (line :: acc)
    | exception End_of_file ->
        close_in channel;
        List.rev acc
  in
  replay store (lines [])

class counter = object
  val mutable count = 0
  method incr = count <- count + 1
  method value = count
end

let () =
  let store = replay Memory.empty [ "P a 1"; "P b 2"; "D a" ] in
  match Memory.find store "b" with
  | Some entry -> printf "b = %s (v%d)\n" entry.value entry.version
  | None -> print_endline "missing"
