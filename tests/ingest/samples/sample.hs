{-# LANGUAGE OverloadedStrings #-}
-- | Parsing and evaluating a tiny expression language.
module Calc.Eval
  ( Expr (..)
  , Env
  , eval
  , parseExpr
  ) where

import qualified Data.Map.Strict as Map
import Data.Char (isDigit, isSpace)

-- | Expressions.
data Expr
  = Num Integer
  | Var String
  | Add Expr Expr
  | Mul Expr Expr
  deriving (Show, Eq)

newtype Env = Env (Map.Map String Integer)

type Result = Either String Integer

class Pretty a where
  pretty :: a -> String
  prettyList :: [a] -> String
  prettyList = unwords . map pretty

instance Pretty Expr where
  pretty (Num n) = show n
  pretty (Var v) = v
  pretty (Add a b) = pretty a ++ " + " ++ pretty b
  pretty (Mul a b) = pretty a ++ " * " ++ pretty b

-- | Evaluate an expression in an environment.
eval :: Env -> Expr -> Result
eval _ (Num n) = Right n
eval (Env vars) (Var v) =
  maybe (Left ("unbound: " ++ v)) Right (Map.lookup v vars)
eval env (Add a b) = (+) <$> eval env a <*> eval env b
eval env (Mul a b) = (*) <$> eval env a <*> eval env b

-- | Tokens of the input.
data Token = TNum Integer | TIdent String | TPlus | TStar
  deriving (Show)

tokenize :: String -> [Token]
tokenize [] = []
tokenize (c : cs)
  | isSpace c = tokenize cs
  | c == '+' = TPlus : tokenize cs
  | c == '*' = TStar : tokenize cs
  | isDigit c =
      let (digits, rest) = span isDigit (c : cs)
       in TNum (read digits) : tokenize rest
  | otherwise =
      let (name, rest) = break (`elem` (" +*" :: String)) (c : cs)
       in TIdent name : tokenize rest

parseExpr :: String -> Maybe Expr
parseExpr = fmap fst . sumOf . tokenize
  where
    sumOf tokens = do
      (left, rest) <- productOf tokens
      case rest of
        TPlus : more -> do
          (right, rest') <- sumOf more
          pure (Add left right, rest')
        _ -> pure (left, rest)
    productOf tokens = do
      (left, rest) <- atom tokens
      case rest of
        TStar : more -> do
          (right, rest') <- productOf more
          pure (Mul left right, rest')
        _ -> pure (left, rest)
    atom (TNum n : rest) = Just (Num n, rest)
    atom (TIdent v : rest) = Just (Var v, rest)
    atom _ = Nothing

emptyEnv :: Env
emptyEnv = Env Map.empty
